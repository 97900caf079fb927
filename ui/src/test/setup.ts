import { afterEach } from "vitest";
import { cleanup, configure } from "@testing-library/react";

// The machines that run this are busy (cargo builds on 2 cores): be patient, not flaky.
configure({ asyncUtilTimeout: 5000 });

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
});
