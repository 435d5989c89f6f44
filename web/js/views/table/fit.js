// The felt as a fitted game surface: its contents (dealer, spots, bet circles, hands) are laid
// out at their natural size and then scaled down, never up, until they fit the room the header,
// the dock and the tabs leave, so every spot and the hand being decided stay on one screen
// without scrolling, at any window size and with any number of split hands.

const MIN_SCALE = 0.3;

/** Scale the felt's contents to fit the felt; called after each draw and on every resize. */
export function fitFelt() {
  const felt = document.querySelector(".felt");
  const inner = felt?.querySelector(".felt-fit");
  if (!inner) return;
  observe(felt);
  const style = getComputedStyle(felt);
  const width = felt.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  // The insurance banner lies over the top of the felt: the contents fit below it, uncovered.
  const banner = felt.querySelector(":scope > .insurance-banner");
  const reserved = banner ? banner.offsetTop + banner.offsetHeight - parseFloat(style.paddingTop) + 6 : 0;
  const height = felt.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - reserved;
  if (width <= 0 || height <= 0) return;
  // A narrower scale lets the content lay out wider (fewer wrapped rows), so settle in a few
  // rounds: lay out at width/scale, measure, rescale.
  let scale = 1;
  for (let round = 0; round < 4; round++) {
    inner.style.width = `${width / scale}px`;
    const next = Math.max(MIN_SCALE, Math.min(1, height / inner.scrollHeight, width / inner.scrollWidth));
    if (Math.abs(next - scale) < 0.005) break;
    scale = next;
  }
  // The last layout must fit at the scale it is shown with; shrinking never makes it wider.
  scale = Math.max(MIN_SCALE, Math.min(scale, height / inner.scrollHeight, width / inner.scrollWidth));
  const top = parseFloat(style.paddingTop) + reserved + Math.max(0, (height - inner.scrollHeight * scale) / 2);
  inner.style.top = `${top}px`;
  inner.style.transform = `translateX(-50%) scale(${scale})`;
  felt.dataset.scale = scale.toFixed(3);
}

let observer = null;
let frame = 0;

/** Refit whenever the felt changes size (a resized window, a phone turned); returns the stop. */
export function watchFit() {
  observer = typeof ResizeObserver === "function"
    ? new ResizeObserver(() => {
        cancelAnimationFrame(frame);
        frame = requestAnimationFrame(fitFelt);
      })
    : null;
  if (!observer) window.addEventListener("resize", fitFelt);
  return () => {
    observer?.disconnect();
    observer = null;
    cancelAnimationFrame(frame);
    window.removeEventListener("resize", fitFelt);
  };
}

/** The felt element is replaced on every draw: the observer follows the new one. */
function observe(felt) {
  if (!observer || felt.dataset.watched) return;
  felt.dataset.watched = "1";
  observer.observe(felt);
}
