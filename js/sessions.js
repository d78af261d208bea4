// The sessions browser view: a sortable, filterable table of a Codex home's saved sessions
// (synced `rows`), the running app-server's own thread list (`live`), and Resume / Fork for the
// selected one; or an ACP agent's sessions (`columns` title, folder, updated; Refresh lists again). Sort, filter and selection are synced traits (the kernel has the same API);
// Resume, Fork and Refresh are messages, checked against protocol.json by the kernel; so are
// Rename (an inline name field), Archive, Delete (asks first) and Unarchive (on the archived list),
// each shown only when the connected Codex has it (`features`).
import { SESSIONS_TO_KERNEL, SESSION_COLUMNS, newRequestId } from "./protocol.js";
import { sessionCells, visibleSessions } from "./sessions_view.js";

const TITLES = /** @type {Record<string, string>} */ ({
  started: "Started", cwd: "Folder", prompt: "First prompt", model: "Model", turns: "Turns", plan: "Plan", status: "Last turn",
  title: "Title", updated: "Updated",
});

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el }) {
    const root = document.createElement("div");
    root.className = "cx-sessions";
    root.dataset.lmSuppressShortcuts = "true";  // typing in the filter must not drive the notebook
    const bar = document.createElement("div");
    bar.className = "cx-sessions-bar";
    const filter = document.createElement("input");
    filter.type = "search";
    filter.placeholder = "Filter sessions (folder, prompt, title…)";
    filter.setAttribute("aria-label", "Filter sessions");
    const resume = document.createElement("button");
    resume.type = "button";
    resume.textContent = "Resume";
    const fork = document.createElement("button");
    fork.type = "button";
    fork.textContent = "Fork";
    const refresh = document.createElement("button");
    refresh.type = "button";
    refresh.textContent = "Refresh";
    /** @param {string} text @param {string} cls */
    const button = (text, cls) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = text;
      b.className = cls;
      return b;
    };
    const rename = button("Rename", "cx-sessions-rename");
    const archive = button("Archive", "cx-sessions-archive");
    const remove = button("Delete", "cx-sessions-delete");
    // Rename asks for the name inline; Delete asks first, naming what goes
    const ask = document.createElement("div");
    ask.className = "cx-sessions-ask";
    ask.hidden = true;
    const askText = document.createElement("span");
    const nameField = document.createElement("input");
    nameField.type = "text";
    nameField.maxLength = 200;
    nameField.setAttribute("aria-label", "New name");
    const confirm = button("OK", "cx-sessions-confirm");
    const cancel = button("Cancel", "cx-sessions-cancel");
    ask.append(askText, nameField, confirm, cancel);
    /** @type {"rename" | "delete" | null} */
    let asking = null;
    /** @param {"rename" | "delete"} what */
    const open = (what) => {
      asking = what;
      nameField.hidden = what !== "rename";
      nameField.value = "";
      askText.textContent = what === "rename"
        ? "New name for the selected session: "
        : "Delete the selected session for good? Its saved conversation is removed and cannot be resumed. ";
      confirm.textContent = what === "rename" ? "Rename" : "Delete";
      ask.hidden = false;
      (what === "rename" ? nameField : confirm).focus();
    };
    const closeAsk = () => {
      asking = null;
      ask.hidden = true;
    };
    const note = document.createElement("span");
    note.className = "cx-sessions-note";
    note.setAttribute("role", "status");
    bar.append(filter, resume, fork, rename, archive, remove, refresh, note);
    const table = document.createElement("table");
    table.className = "cx-sessions-table";
    const live = document.createElement("div");
    live.className = "cx-sessions-live";
    const archivedList = document.createElement("ul");
    archivedList.className = "cx-sessions-archived";
    root.append(bar, ask, table, live, archivedList);
    el.append(root);

    /** @param {string} kind */
    const send = (kind) => {
      /** @type {Record<string, unknown>} */
      const message = { id: newRequestId(), kind };
      if (kind !== SESSIONS_TO_KERNEL.refresh) message.session = model.get("selected");
      model.send(message);
    };
    resume.addEventListener("click", () => send(SESSIONS_TO_KERNEL.resume));
    fork.addEventListener("click", () => send(SESSIONS_TO_KERNEL.fork));
    refresh.addEventListener("click", () => send(SESSIONS_TO_KERNEL.refresh));
    rename.addEventListener("click", () => open("rename"));
    remove.addEventListener("click", () => open("delete"));
    archive.addEventListener("click", () => send(SESSIONS_TO_KERNEL.archive));
    cancel.addEventListener("click", closeAsk);
    confirm.addEventListener("click", () => {
      if (asking === "rename") {
        const name = nameField.value.trim();
        if (!name) return;  // the kernel would refuse an empty name: wait for one
        model.send({ id: newRequestId(), kind: SESSIONS_TO_KERNEL.rename, session: model.get("selected"), name });
      } else if (asking === "delete") {
        send(SESSIONS_TO_KERNEL.delete);
      }
      closeAsk();
    });
    nameField.addEventListener("keydown", (event) => {
      if (event.key === "Enter") confirm.click();
    });
    filter.addEventListener("input", () => {
      model.set("query", filter.value);
      model.save_changes();
    });

    const draw = () => {
      const features = model.get("features") ?? {};
      const selected = model.get("selected");
      if (filter.value !== model.get("query")) filter.value = model.get("query");
      resume.hidden = !features.resume;
      fork.hidden = !features.fork;  // a binary without thread/fork: no button
      refresh.hidden = !("refresh" in features ? features.refresh : features.resume);
      rename.hidden = !features.rename;
      archive.hidden = !features.archive;
      remove.hidden = !features.delete;
      resume.disabled = fork.disabled = rename.disabled = archive.disabled = remove.disabled = !selected;
      if (!selected) closeAsk();
      note.textContent = model.get("error") || model.get("status");
      const stored = model.get("columns");
      const columns = stored?.length ? stored : SESSION_COLUMNS;
      const rows = visibleSessions(model.get("rows") ?? [], model.get("query"), model.get("sort_by"), model.get("descending"));
      const head = document.createElement("tr");
      for (const column of columns) {
        const th = document.createElement("th");
        const arrow = model.get("sort_by") === column ? (model.get("descending") ? " ▾" : " ▴") : "";
        th.textContent = (TITLES[column] ?? column) + arrow;
        th.setAttribute("role", "button");
        th.tabIndex = 0;
        th.addEventListener("click", () => {
          model.set("descending", model.get("sort_by") === column ? !model.get("descending") : false);
          model.set("sort_by", column);
          model.save_changes();
        });
        head.append(th);
      }
      const body = rows.map((row) => {
        const tr = document.createElement("tr");
        tr.dataset.id = row.id;
        tr.tabIndex = 0;
        if (row.id === selected) tr.className = "cx-selected";
        if (row.problem) tr.title = row.problem;
        const cells = /** @type {Record<string, string>} */ (sessionCells(row));
        for (const column of columns) {
          const td = document.createElement("td");
          td.textContent = cells[column] ?? "";
          tr.append(td);
        }
        tr.addEventListener("click", () => {
          model.set("selected", row.id);
          model.save_changes();
        });
        return tr;
      });
      table.replaceChildren(head, ...body);
      const threads = model.get("live") ?? [];
      live.textContent = threads.length
        ? `The running app-server knows ${threads.length} thread(s): ` + threads.map((/** @type {any} */ t) => t.preview || t.id).join(" · ")
        : "";
      const archived = /** @type {{id: string, name?: string, preview?: string}[]} */ (model.get("archived") ?? []);
      archivedList.hidden = !archived.length || !features.unarchive;
      archivedList.replaceChildren(...archived.map((t) => {
        const li = document.createElement("li");
        li.dataset.id = t.id;
        const again = button("Unarchive", "cx-sessions-unarchive");
        again.addEventListener("click", () => model.send({ id: newRequestId(), kind: SESSIONS_TO_KERNEL.unarchive, session: t.id }));
        li.append(`Archived: ${t.name || t.preview || t.id} `, again);
        return li;
      }));
    };
    const names = ["rows", "columns", "live", "archived", "query", "sort_by", "descending", "selected", "features", "status", "error"];
    for (const name of names) model.on(`change:${name}`, draw);
    draw();
    return () => {
      for (const name of names) model.off(`change:${name}`, draw);
    };
  },
};
