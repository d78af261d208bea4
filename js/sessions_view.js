// The sessions browser's pure part (no DOM): which rows a filter keeps and in what order, the
// same rules as SessionsTable.visible() in the kernel (codex_nb/widgets/sessions_browser.py).
// A Codex home's rows have the first set of fields, an ACP agent's only id, title, cwd, updated.

/** @typedef {{id: string, started?: string, cwd: string, prompt?: string, model?: string, turns?: number, turns_exact?: boolean, plan?: string, status?: string, size?: number, problem?: string, title?: string, updated?: string}} SessionRow */

const NUMERIC = new Set(["turns", "size"]);
const SEARCHED = /** @type {const} */ (["id", "started", "cwd", "prompt", "model", "status", "problem", "title", "updated"]);

/**
 * The rows a filter keeps (every word, case-insensitive, somewhere in the row), sorted by a column.
 * @param {SessionRow[]} rows
 * @param {string} filter
 * @param {string} sortBy
 * @param {boolean} descending
 * @returns {SessionRow[]}
 */
export function visibleSessions(rows, filter, sortBy, descending) {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const kept = rows.filter((row) => {
    const text = SEARCHED.map((key) => String(row[key] ?? "")).join("\n").toLowerCase();
    return words.every((word) => text.includes(word));
  });
  /** @param {SessionRow} row */
  const key = (row) => (NUMERIC.has(sortBy) ? Number(row[/** @type {keyof SessionRow} */ (sortBy)] ?? 0) : String(row[/** @type {keyof SessionRow} */ (sortBy)] ?? ""));
  const sign = descending ? -1 : 1;
  return [...kept].sort((a, b) => {
    const ka = key(a), kb = key(b);
    if (ka < kb) return -sign;
    if (ka > kb) return sign;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

/**
 * A row's cells as the table shows them.
 * @param {SessionRow} row
 */
export function sessionCells(row) {
  return {
    started: (row.started ?? "").replace("T", " ").slice(0, 16),
    cwd: row.cwd ?? "",
    prompt: row.prompt ?? "",
    model: row.model ?? "",
    turns: row.turns_exact ? String(row.turns) : `≥${row.turns}`,
    plan: row.plan ?? "",
    status: row.status ?? "",
    title: row.title ?? "",
    updated: (row.updated ?? "").replace("T", " ").slice(0, 16),
  };
}
