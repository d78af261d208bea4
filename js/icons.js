// The widgets' icons, drawn as inline SVG the bundle ships: an emoji (a speech balloon, a
// paperclip) is an empty box on a machine without an emoji font, and these draw with none.
// Each icon is decorative (aria-hidden): the text beside it says what it means.

const SVG = "http://www.w3.org/2000/svg";

/** Path data of each icon on a 16x16 grid, stroked in the text's colour. */
export const ICONS = /** @type {const} */ ({
  comment: "M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z",
  attachment: "M10.5 4.5l-5 5a1.5 1.5 0 0 0 2.1 2.1l5.3-5.3a3 3 0 0 0-4.2-4.2L3.4 7.4a4.5 4.5 0 0 0 6.4 6.4l3.7-3.7",
});

/**
 * An inline SVG icon (1em square, currentColor), for placing before a text.
 * @param {keyof typeof ICONS} name
 * @returns {SVGSVGElement}
 */
export function icon(name) {
  if (!(name in ICONS)) throw new Error(`unknown icon ${JSON.stringify(name)}`);
  const svg = /** @type {SVGSVGElement} */ (document.createElementNS(SVG, "svg"));
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("width", "1em");
  svg.setAttribute("height", "1em");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", `cx-icon cx-icon-${name}`);
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", ICONS[name]);
  path.setAttribute("fill", "none");
  path.setAttribute("stroke", "currentColor");
  path.setAttribute("stroke-width", "1.3");
  path.setAttribute("stroke-linejoin", "round");
  path.setAttribute("stroke-linecap", "round");
  svg.append(path);
  return svg;
}
