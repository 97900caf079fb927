import { defineConfig } from "vitest/config";
import type { ProxyOptions } from "vite";

// `npm run dev` proxies the API to a running `mnemo serve` (default port 4517; override with
// MNEMO_SERVER). The server refuses other origins and wants its token, so the proxy presents
// itself as same-origin and, if MNEMO_TOKEN is set (`$MNEMO_HOME/server.token`), sends it as a
// bearer token.
const server = process.env.MNEMO_SERVER ?? "http://127.0.0.1:4517";
const token = process.env.MNEMO_TOKEN;
const proxy: ProxyOptions = {
  target: server,
  changeOrigin: true,
  headers: { origin: server, ...(token ? { authorization: `Bearer ${token}` } : {}) },
};

// JSX goes through esbuild's automatic runtime; no React plugin needed.
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
    proxy: { "/api": proxy, "/events": proxy },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    testTimeout: 20000,
    clearMocks: true,
    restoreMocks: true,
  },
});
