// The Bonus Spin Xtreme wheels, drawn from the title's rule set: the inner wheel inside, the
// Power Up wheel around it, each wedge as wide as its weight. The server draws the result; the
// wheels only show it, turning until the wedges it named sit under the pointer at the top.
import { h } from "../../format.js";
import { t } from "../../i18n.js";
import { v } from "./state.js";

const SVG = "http://www.w3.org/2000/svg";
const TURNS = 4; // whole turns before a wheel settles (none with reduced motion)
const COLOURS = ["#1f6f4a", "#b8433a", "#2f5fa8", "#c99a2e", "#6a1b9a", "#ef6c00", "#2e7d32", "#8a2720"];

function svg(tag, attributes = {}, children = []) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

/** Wedges as [label, start, end] in degrees clockwise from the top, sized by weight. */
export function wedgeAngles(wedges) {
  const total = wedges.reduce((sum, wedge) => sum + wedge.weight, 0) || 1;
  let start = 0;
  return wedges.map((wedge) => {
    const end = start + (360 * wedge.weight) / total;
    const span = [wedge, start, end];
    start = end;
    return span;
  });
}

function point(radius, degrees) {
  const radians = ((degrees - 90) * Math.PI) / 180;
  return `${(radius * Math.cos(radians)).toFixed(2)} ${(radius * Math.sin(radians)).toFixed(2)}`;
}

function ring(wedges, inner, outer, landed, name) {
  const group = svg("g", { class: `wheel-ring wheel-${name}` });
  wedgeAngles(wedges).forEach(([wedge, start, end], index) => {
    const large = end - start > 180 ? 1 : 0;
    const path = `M ${point(outer, start)} A ${outer} ${outer} 0 ${large} 1 ${point(outer, end)} `
      + `L ${point(inner, end)} A ${inner} ${inner} 0 ${large} 0 ${point(inner, start)} Z`;
    const hit = wedge.label === landed;
    group.append(svg("path", {
      d: path,
      fill: wedge.power_up ? "#f3c969" : COLOURS[index % COLOURS.length],
      stroke: "#0c1512",
      "stroke-width": 0.8,
      class: `wedge${hit ? " wedge-landed" : ""}`,
      "data-label": wedge.label,
      "data-center": ((start + end) / 2).toFixed(3),
    }));
    const middle = (start + end) / 2;
    const [x, y] = point((inner + outer) / 2, middle).split(" ");
    group.append(svg("text", {
      x, y,
      class: "wedge-label",
      "text-anchor": "middle",
      "dominant-baseline": "central",
      transform: `rotate(${middle.toFixed(2)} ${x} ${y})`,
      fill: wedge.power_up ? "#231a04" : "#fff",
    }, [document.createTextNode(wedge.label)]));
  });
  return group;
}

/** How far a ring turns so that the wedge labelled ``label`` ends under the top pointer. */
export function landingAngle(wedges, label, turns = TURNS) {
  const found = wedgeAngles(wedges).find(([wedge]) => wedge.label === label);
  if (!found) return null;
  const center = (found[1] + found[2]) / 2;
  return turns * 360 + ((360 - center) % 360);
}

function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/** One spin: the wheels of ``bet`` (its rule set) landing on ``labels`` (inner, outer...);
 * with no labels, the wheels at rest (the rules page). */
export function wheelFigure(bet, labels) {
  const wheel = bet.wheel;
  const [innerLabel, outerLabel] = labels;
  const powered = wheel.inner.some((wedge) => wedge.power_up && wedge.label === innerLabel);
  const turns = reducedMotion() ? 0 : TURNS;
  const inner = ring(wheel.inner, 18, 62, innerLabel, "inner");
  const outer = wheel.outer.length ? ring(wheel.outer, 66, 96, powered ? outerLabel : null, "outer") : null;
  const innerAngle = landingAngle(wheel.inner, innerLabel, turns);
  const outerAngle = powered ? landingAngle(wheel.outer, outerLabel, turns && turns + 2) : null;
  const figure = svg("svg", {
    viewBox: "-100 -108 200 210",
    class: "wheel-svg",
    role: "img",
    "aria-label": t("wheel.landed", { wedges: labels.join(" · ") }),
    "data-inner": innerLabel ?? "",
    "data-outer": powered ? outerLabel : "",
    "data-inner-angle": innerAngle ?? "",
    "data-outer-angle": outerAngle ?? "",
  }, [
    ...(outer ? [outer] : []),
    inner,
    svg("circle", { r: 16, fill: "#0c1512", stroke: "#f3c969", "stroke-width": 2 }),
    svg("path", { d: "M -7 -106 L 7 -106 L 0 -92 Z", class: "wheel-pointer", fill: "#f3c969" }),
  ]);
  // Start still, then turn to the drawn wedges (a transition; instant with reduced motion).
  const turn = (group, angle) => {
    if (!group || angle === null) return;
    group.style.transform = `rotate(${angle}deg)`;
  };
  if (turns) requestAnimationFrame(() => requestAnimationFrame(() => {
    turn(inner, innerAngle);
    turn(outer, outerAngle);
  }));
  else {
    turn(inner, innerAngle);
    turn(outer, outerAngle);
  }
  return figure;
}

/** The spins of this player's wheel bets in the round shown, each drawn once and kept (a
 * redraw must not start a wheel turning again). */
export function wheelShows(positions) {
  const shows = [];
  v.wheels ??= new Map();
  for (const position of positions) {
    for (const [key, side] of Object.entries(position.side_bets || {})) {
      const bet = v.rules.side_bets?.find((item) => item.key === key);
      if (!bet?.wheel || !Array.isArray(side.wheel) || !side.wheel.length) continue;
      const id = `${v.roundId}:${position.spot}:${key}`;
      if (!v.wheels.has(id)) {
        v.wheels.set(id, h("figure.wheel-show", { dataset: { spot: position.spot, bet: key } },
          wheelFigure(bet, side.wheel),
          h("figcaption", {}, t("wheel.landed", { wedges: side.wheel.join(" · ") })),
        ));
      }
      shows.push(v.wheels.get(id));
    }
  }
  return shows;
}
