import { defineConfig } from "vitest/config";

// JSX goes through Vite's built-in transform (automatic runtime); no React plugin needed.
export default defineConfig({
  base: "./",
  esbuild: { jsx: "automatic" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2021",
    chunkSizeWarningLimit: 1200,
  },
  server: {
    // `npm run dev` against a running `mnemo serve` (default port assumed 7788; override MNEMO_SERVER).
    proxy: {
      "/api": process.env.MNEMO_SERVER ?? "http://127.0.0.1:7788",
      "/events": process.env.MNEMO_SERVER ?? "http://127.0.0.1:7788",
    },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    restoreMocks: true,
  },
});
