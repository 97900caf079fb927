// The one cache of command answers the whole UI reads through (`lib/queries.ts` fills it).
// Kept apart from the queries so the test set-up can clear it between tests without importing
// the bindings a test file mocks.

import { QueryClient } from "@tanstack/react-query";
import type { UiError } from "./transport";

declare module "@tanstack/react-query" {
  interface Register {
    // A failed read is thrown as the UI shows errors (`toUiError`), never as a bare `Error`.
    defaultError: UiError;
  }
}

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A failure shows at once, with its Retry: a person asked, nobody should wait for a retry.
      retry: false,
      // Answers go stale at once: a reader that mounts reads afresh (shared with any read in
      // flight), as each component did on its own; the change events refresh what is shown.
      staleTime: 0,
      // Focus means nothing to most answers: those that another program may change without an
      // event ask for it themselves.
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
    },
  },
});

// An answer nobody shows any more is dropped at once: whoever shows it next reads it afresh and
// says "Loading…" meanwhile, as before this cache, instead of showing what was true back then.
queryClient.getQueryCache().subscribe((event) => {
  if (event.type === "observerRemoved" && event.query.getObserversCount() === 0) queryClient.getQueryCache().remove(event.query);
});
