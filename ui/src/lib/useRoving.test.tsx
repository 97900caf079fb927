import { describe, expect, it } from "vitest";
import { useRef } from "react";
import { fireEvent, render, screen } from "@testing-library/react";
import { rovingTarget, useRoving } from "./useRoving";
import { shortcutOf } from "./useShortcuts";

function Bar({ disabled = false }: { disabled?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useRoving(ref, { items: "button", orientation: "horizontal" });
  return (
    <div role="toolbar" aria-label="Tools" ref={ref}>
      <button type="button">One</button>
      <button type="button" disabled={disabled}>
        Two
      </button>
      <button type="button">Three</button>
    </div>
  );
}

const stops = () => screen.getAllByRole("button").filter((b) => b.tabIndex === 0).map((b) => b.textContent);

describe("one Tab stop with arrow keys inside", () => {
  it("keeps one control tabbable; ←/→, Home and End move the focus and the stop with it", () => {
    render(<Bar />);
    expect(stops()).toEqual(["One"]);
    const [one, , three] = screen.getAllByRole("button");
    one.focus();
    fireEvent.keyDown(one, { key: "ArrowRight" });
    expect(document.activeElement?.textContent).toBe("Two");
    expect(stops()).toEqual(["Two"]);
    fireEvent.keyDown(document.activeElement!, { key: "End" });
    expect(document.activeElement).toBe(three);
    // Wraps around.
    fireEvent.keyDown(three, { key: "ArrowRight" });
    expect(document.activeElement).toBe(one);
    fireEvent.keyDown(one, { key: "ArrowLeft" });
    expect(document.activeElement).toBe(three);
    // Other keys (Tab, Enter) are left alone.
    fireEvent.keyDown(three, { key: "Tab" });
    expect(document.activeElement).toBe(three);
  });

  it("skips a disabled control", () => {
    render(<Bar disabled />);
    const [one] = screen.getAllByRole("button");
    one.focus();
    fireEvent.keyDown(one, { key: "ArrowRight" });
    expect(document.activeElement?.textContent).toBe("Three");
  });

  it("moves by the orientation's arrows only", () => {
    expect(rovingTarget("ArrowDown", 0, 3, "vertical")).toBe(1);
    expect(rovingTarget("ArrowRight", 0, 3, "vertical")).toBeNull();
    expect(rovingTarget("ArrowUp", -1, 3, "vertical")).toBe(2);
    expect(rovingTarget("Home", 2, 3, "horizontal")).toBe(0);
    expect(rovingTarget("ArrowRight", 0, 0, "horizontal")).toBeNull();
  });
});

describe("the window's shortcuts", () => {
  const key = (k: string, mods: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });
  it("reads Ctrl+K / ⌘K as search and Ctrl+, / ⌘, as Settings", () => {
    expect(shortcutOf(key("k", { ctrlKey: true }))).toBe("search");
    expect(shortcutOf(key("K", { metaKey: true }))).toBe("search");
    expect(shortcutOf(key(",", { ctrlKey: true }))).toBe("settings");
    expect(shortcutOf(key(",", { metaKey: true }))).toBe("settings");
    expect(shortcutOf(key(","))).toBeNull();
    expect(shortcutOf(key(",", { ctrlKey: true, altKey: true }))).toBeNull();
  });
});
