import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { ToastProvider } from "./components/common/Toasts";
import { installBrowserTransport, isTauri } from "./lib/transport";
import "./styles.css";
import "./status.css";
import "./inbox.css";
import "./curate.css";
import "./transfer.css";

if (!isTauri()) installBrowserTransport();

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <ToastProvider>
      <App />
    </ToastProvider>
  </StrictMode>,
);
