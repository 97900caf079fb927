import { describe, expect, it } from "vitest";
import { StrictMode, useEffect, useState } from "react";
import { act, renderHook, waitFor } from "@testing-library/react";
import type { ApiError } from "./bindings";
import type { Result } from "./transport";
import { createCommandRunner, useCommand } from "./useCommand";
import type { Answer } from "./useCommand";

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const ok = <T>(data: T): Result<T, ApiError> => ({ status: "ok", data });
const fail = (code: ApiError["code"], message: string): Result<never, ApiError> => ({
  status: "error",
  error: { code, message },
});

describe("createCommandRunner", () => {
  it("answers with the data, or the error as a UiError", async () => {
    const r = createCommandRunner();
    expect(await r.run(Promise.resolve(ok(42)))).toEqual({ ok: true, data: 42 });
    expect(await r.run(Promise.resolve(fail("not_found", "gone")))).toEqual({
      ok: false,
      error: { code: "not_found", message: "gone" },
    });
  });

  it("turns a rejected call (a transport failure) into an error answer, never a rejection", async () => {
    const r = createCommandRunner();
    expect(await r.run(Promise.reject({ code: "network", message: "offline" }))).toEqual({
      ok: false,
      error: { code: "network", message: "offline" },
    });
    expect(await r.run(Promise.reject(new Error("boom")))).toEqual({
      ok: false,
      error: { code: "internal", message: "boom" },
    });
  });

  it("drops answers that arrive after the owner unmounted", async () => {
    const r = createCommandRunner();
    const detach = r.attach();
    const d = deferred<Result<number, ApiError>>();
    const answer = r.run(d.promise);
    detach();
    expect(r.alive()).toBe(false);
    d.resolve(ok(1));
    expect(await answer).toBeNull();
  });

  it("drops answers of an earlier mount, even when mounted again", async () => {
    const r = createCommandRunner();
    const d = deferred<Result<number, ApiError>>();
    const answer = r.run(d.promise);
    r.attach()();
    r.attach();
    expect(r.alive()).toBe(true);
    d.resolve(ok(1));
    expect(await answer).toBeNull();
    expect(await r.run(Promise.resolve(ok(2)))).toEqual({ ok: true, data: 2 });
  });

  it("keeps only the newest run of a slot; other slots and unslotted runs are independent", async () => {
    const r = createCommandRunner();
    const first = deferred<Result<string, ApiError>>();
    const second = deferred<Result<string, ApiError>>();
    const other = deferred<Result<string, ApiError>>();
    const plain = deferred<Result<string, ApiError>>();
    const a1 = r.run(first.promise, "load");
    const b = r.run(other.promise, "other");
    const p = r.run(plain.promise);
    const a2 = r.run(second.promise, "load");
    // The superseded one answers last: still dropped.
    second.resolve(ok("second"));
    first.resolve(ok("first"));
    other.resolve(ok("other"));
    plain.resolve(ok("plain"));
    expect(await a1).toBeNull();
    expect(await a2).toEqual({ ok: true, data: "second" });
    expect(await b).toEqual({ ok: true, data: "other" });
    expect(await p).toEqual({ ok: true, data: "plain" });
  });

  it("cancel(slot) drops the run in flight there, and later runs answer again", async () => {
    const r = createCommandRunner();
    const d = deferred<Result<number, ApiError>>();
    const answer = r.run(d.promise, "search");
    r.cancel("search");
    d.resolve(ok(1));
    expect(await answer).toBeNull();
    r.cancel("never-used");
    expect(await r.run(Promise.resolve(ok(2)), "search")).toEqual({ ok: true, data: 2 });
  });
});

describe("useCommand", () => {
  it("is the same runner across renders", () => {
    const { result, rerender } = renderHook(() => useCommand());
    const first = result.current;
    rerender();
    expect(result.current).toBe(first);
    expect(result.current.run).toBe(first.run);
  });

  it("drops answers once the component unmounted", async () => {
    const { result, unmount } = renderHook(() => useCommand());
    expect(result.current.alive()).toBe(true);
    const d = deferred<Result<number, ApiError>>();
    const answer = result.current.run(d.promise);
    unmount();
    expect(result.current.alive()).toBe(false);
    d.resolve(ok(1));
    expect(await answer).toBeNull();
  });

  it("in an effect, keeps only the answer for the current inputs", async () => {
    const calls = new Map<string, ReturnType<typeof deferred<Result<string, ApiError>>>>();
    const call = (q: string) => {
      const d = deferred<Result<string, ApiError>>();
      calls.set(q, d);
      return d.promise;
    };
    const seen: Answer<string>[] = [];
    const { result, rerender } = renderHook(
      ({ q }: { q: string }) => {
        const { run, cancel } = useCommand();
        const [shown, setShown] = useState<string | null>(null);
        useEffect(() => {
          void run(call(q), "q").then((a) => {
            if (!a) return;
            seen.push(a);
            if (a.ok) setShown(a.data);
          });
          return () => cancel("q");
        }, [run, cancel, q]);
        return shown;
      },
      { initialProps: { q: "a" }, wrapper: StrictMode },
    );
    rerender({ q: "ab" });
    await act(async () => {
      calls.get("ab")?.resolve(ok("result ab"));
      calls.get("a")?.resolve(ok("result a"));
    });
    await waitFor(() => expect(result.current).toBe("result ab"));
    expect(seen).toEqual([{ ok: true, data: "result ab" }]);
  });
});
