import { afterEach } from "vitest";
import { cleanup, configure } from "@testing-library/react";
import { notifyManager } from "@tanstack/react-query";
import { queryClient } from "../lib/queryClient";

// The machines that run this are busy (cargo builds on 2 cores): be patient, not flaky.
configure({ asyncUtilTimeout: 5000 });

// The cache tells components about answers in a microtask, not a timer: tests on fake timers see
// an answer once it resolved, without advancing the clock for the cache's own sake.
notifyManager.setScheduler(queueMicrotask);

// jsdom does no layout. Give elements a size so the virtualised list renders rows,
// and give ranges rects so CodeMirror can measure.
Object.defineProperty(HTMLElement.prototype, "clientHeight", { configurable: true, get: () => 800 });
Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => 600 });
Object.defineProperty(HTMLElement.prototype, "offsetHeight", { configurable: true, get: () => 800 });
Object.defineProperty(HTMLElement.prototype, "offsetWidth", { configurable: true, get: () => 600 });

const emptyRect = (): DOMRect => ({
  x: 0,
  y: 0,
  width: 0,
  height: 0,
  top: 0,
  left: 0,
  right: 0,
  bottom: 0,
  toJSON: () => ({}),
});
Range.prototype.getBoundingClientRect = emptyRect;
Range.prototype.getClientRects = () =>
  ({ length: 0, item: () => null, [Symbol.iterator]: [][Symbol.iterator] }) as unknown as DOMRectList;

afterEach(() => {
  cleanup();
  // No answer read in one test may show in the next.
  queryClient.clear();
});
