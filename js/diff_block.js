// One file's diff as a collapsible block, lines coloured by kind: the approval cards' and the
// transcript's "what changed" entry share it, so a diff looks the same wherever it shows.

/**
 * @param {{path: string, kind: string, lines: {text: string, cls: string}[]}} change
 * @param {{open?: boolean}} [options]
 */
export function diffBlock(change, { open = true } = {}) {
  const adds = change.lines.filter((l) => l.cls === "add").length;
  const dels = change.lines.filter((l) => l.cls === "del").length;
  const details = document.createElement("details");
  details.className = "cx-file-diff";
  details.open = open;
  details.dataset.path = change.path;
  const summary = document.createElement("summary");
  summary.className = "cx-file";
  const add = document.createElement("span");
  add.className = "cx-diff-add";
  add.textContent = `+${adds}`;
  const del = document.createElement("span");
  del.className = "cx-diff-del";
  del.textContent = `-${dels}`;
  summary.append(`${change.kind}: ${change.path} `, add, " ", del);
  const pre = document.createElement("pre");
  pre.className = "cx-diff";
  for (const line of change.lines) {
    const span = document.createElement("span");
    span.className = `cx-diff-line cx-diff-${line.cls}`;
    span.textContent = line.text;
    pre.append(span, "\n");
  }
  details.append(summary, pre);
  return details;
}
