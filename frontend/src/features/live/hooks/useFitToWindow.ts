// Keeps a sticky panel no taller than the window below its top edge: before the page scrolls it up
// to where it sticks, the panel starts lower down, and a fixed max-height (100vh) put its footer
// below the window.
import { type RefObject, useLayoutEffect } from "react";

/** Gap kept under the panel, in px. */
const MARGIN_PX = 10;

export function useFitToWindow(ref: RefObject<HTMLElement | null>, ready: boolean) {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || !ready) return undefined;
    const fit = () => {
      // Only while it is sticky (wide screens); a narrow screen's static panel keeps its own height.
      if (getComputedStyle(el).position !== "sticky") {
        el.style.maxHeight = "";
        return;
      }
      const top = Math.max(el.getBoundingClientRect().top, 0);
      el.style.maxHeight = `${Math.max(window.innerHeight - top - MARGIN_PX, 0)}px`;
    };
    fit();
    window.addEventListener("scroll", fit, { passive: true });
    window.addEventListener("resize", fit);
    return () => {
      window.removeEventListener("scroll", fit);
      window.removeEventListener("resize", fit);
    };
  }, [ref, ready]);
}
