// One way to call a command from a component and drop its answer when nobody wants it any more:
// the component unmounted, or a newer request replaced it. Replaces the hand-rolled
// `let cancelled = false` / `alive.current` checks. Reads go through the data layer instead
// (`lib/queries.ts`: its hooks, or `readOnce` / `readAfterWrite` run here); this is for writes.
//
//   const { run } = useCommand();
//   const pin = async () => {
//     const answer = await run(commands.setPinned(ws, path, true), "pin");
//     if (!answer) return; // unmounted, or another pin replaced it
//     if (answer.ok) onPinned(answer.data);
//     else setError(answer.error);
//   };

import { useEffect, useState } from "react";
import { toUiError } from "./transport";
import type { Result, UiError } from "./transport";

/** A command's answer, its error already in the shape the UI shows. */
export type Answer<T> = { ok: true; data: T } | { ok: false; error: UiError };

export interface CommandRunner {
  /**
   * Waits for a command (`commands.x(…)`, or anything resolving to a `Result`) and resolves with
   * its answer — or with `null` when the answer is no longer wanted: the component unmounted,
   * or, for a run in a `slot`, a newer run in the same slot started or `cancel(slot)` was called.
   * Never rejects: a rejection (a transport failure) is an error answer.
   */
  run<T>(call: Promise<Result<T, UiError>>, slot?: string): Promise<Answer<T> | null>;
  /** Drops the answer of the run in flight in `slot`, if any (an effect's clean-up). */
  cancel(slot: string): void;
  /** Whether the component is still mounted (after awaiting something that is not a command). */
  alive(): boolean;
}

/** The runner without React: `attach` marks the owner mounted and returns what unmounts it. */
export interface AttachableRunner extends CommandRunner {
  attach(): () => void;
}

export function createCommandRunner(): AttachableRunner {
  // Mounted from the start: a child's effects run before its parent's, and may call back into it.
  let mounted = true;
  // Bumped on every unmount, so runs of an earlier mount (React StrictMode remounts) stay dropped.
  let epoch = 0;
  const slots = new Map<string, number>();

  const cancel = (slot: string) => {
    slots.set(slot, (slots.get(slot) ?? 0) + 1);
  };

  const run = async <T>(call: Promise<Result<T, UiError>>, slot?: string): Promise<Answer<T> | null> => {
    const myEpoch = epoch;
    let mySeq = 0;
    if (slot !== undefined) {
      cancel(slot);
      mySeq = slots.get(slot) ?? 0;
    }
    let answer: Answer<T>;
    try {
      const r = await call;
      answer = r.status === "ok" ? { ok: true, data: r.data } : { ok: false, error: toUiError(r.error) };
    } catch (e) {
      answer = { ok: false, error: toUiError(e) };
    }
    if (!mounted || epoch !== myEpoch) return null;
    if (slot !== undefined && slots.get(slot) !== mySeq) return null;
    return answer;
  };

  const attach = () => {
    mounted = true;
    return () => {
      mounted = false;
      epoch += 1;
    };
  };

  return { run, cancel, alive: () => mounted, attach };
}

/** A command runner for this component; the same object (and functions) for its whole life. */
export function useCommand(): CommandRunner {
  const [runner] = useState(createCommandRunner);
  useEffect(() => runner.attach(), [runner]);
  return runner;
}
