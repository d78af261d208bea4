// The prompts widget view: one card per pending request (a question form, a permission
// prompt, a command or file-change approval, an MCP elicitation). Pending requests come from the synced `requests` trait; answers go back with
// model.send({id, kind, ...}). Cards are keyed by request id, so typing in one card survives
// updates of the others; a settled request's card disappears when the kernel drops it.
import { diffBlock } from "./diff_block.js";
import { permissionDetailsBlock } from "./permission_details.js";
import { answerApprovalMessage, answerElicitationMessage, answerPermissionsMessage, answerUserInputMessage, buildAnswers, buildElicitationContent, cardModel, countdownText, diffCards, grantMessage, inputType, readyMessage } from "./prompts_view.js";

/** @param {string} tag @param {Record<string, string>} attrs @param {(Node | string)[]} children */
function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

/** @param {any} model @param {any} card */
function questionCard(model, card) {
  /** @type {Record<string, {choice: string | null, note: string}>} */
  const selections = {};
  const form = /** @type {HTMLFormElement} */ (h("form", { class: "cx-prompt cx-question", "data-request-id": card.id }));
  const titleId = `${card.id}-title`;
  form.setAttribute("aria-labelledby", titleId);
  form.append(h("div", { class: "cx-prompt-title", id: titleId }, [card.title]),
    h("div", { class: `cx-waiting${card.blocking ? "" : " cx-not-blocking"}`, role: "status",
      "data-blocking": String(card.blocking) }, [card.waiting]));
  for (const q of card.questions) {
    selections[q.id] = { choice: null, note: "" };
    const box = h("fieldset", { class: "cx-q", "data-question-id": q.id },
      [h("legend", {}, [q.header]), h("div", { class: "cx-q-text" }, [q.question])]);
    if (q.details) box.append(permissionDetailsBlock(q.details));
    const choices = [...q.options.map((/** @type {any} */ o) => ({ ...o })),
      ...(q.other ? [{ label: q.other, description: "Write your own answer below." }] : [])];
    for (const option of choices) {
      const input = h("input", { type: "radio", name: `${card.id}:${q.id}`, value: option.label });
      input.addEventListener("change", () => { selections[q.id].choice = option.label; });
      box.append(h("label", { class: "cx-option" },
        [input, h("span", { class: "cx-option-label" }, [option.label]),
          h("span", { class: "cx-option-desc" }, [option.description])]));
    }
    const note = h("input", { type: q.secret ? "password" : "text", class: "cx-note",
      placeholder: q.secret ? "Secret answer (hidden)" : "Other / note", autocomplete: "off",
      "aria-label": `${q.header || "Answer"}: ${q.secret ? "secret answer" : "other answer or note"}` });
    note.addEventListener("input", () => { selections[q.id].note = /** @type {HTMLInputElement} */ (note).value; });
    note.addEventListener("keydown", (ev) => {  // Enter submits, whatever the page does with Enter
      if (/** @type {KeyboardEvent} */ (ev).key === "Enter") { ev.preventDefault(); ev.stopPropagation(); form.requestSubmit(); }
    });
    box.append(note);
    form.append(box);
  }
  const problem = h("div", { class: "cx-form-error", role: "alert" });
  const countdown = h("div", { class: "cx-countdown" });
  form.append(problem, countdown, h("button", { type: "submit", class: "cx-submit" }, ["Submit"]));
  form.addEventListener("input", () => { problem.textContent = ""; });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const built = buildAnswers(card.questions, selections);
    if ("error" in built) { problem.textContent = built.error; return; }
    problem.textContent = "";
    for (const b of form.querySelectorAll("button")) b.setAttribute("disabled", "");
    model.send(answerUserInputMessage(card.id, built.answers));
  });
  return { node: form, countdown };
}

/** Each part of the request is a checkbox (all ticked); the buttons grant the ticked ones for
 * the turn or the session, or deny all.
 * @param {any} model @param {any} card */
function permissionCard(model, card) {
  const titleId = `${card.id}-title`;
  const node = h("div", { class: "cx-prompt cx-permission", "data-request-id": card.id, role: "group",
    "aria-labelledby": titleId });
  node.append(h("div", { class: "cx-prompt-title", id: titleId }, [card.title]),
    h("div", { class: "cx-waiting", role: "status" }, ["The turn is waiting for your decision."]));
  if (card.reason) node.append(h("div", { class: "cx-reason" }, [card.reason]));
  /** @type {{grant: any, input: HTMLInputElement}[]} */
  const boxes = [];
  const list = h("ul", { class: "cx-what" });
  for (const grant of card.grants) {
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", class: "cx-grant" }));
    input.checked = true;
    boxes.push({ grant, input });
    list.append(h("li", {}, [h("label", {}, [input, ` ${grant.label}`])]));
  }
  node.append(list);
  if (card.cwd) node.append(h("div", { class: "cx-cwd" }, [`cwd: ${card.cwd}`]));
  const buttons = h("div", { class: "cx-buttons" });
  const disable = () => { for (const b of buttons.querySelectorAll("button")) b.setAttribute("disabled", ""); };
  for (const { decision, label } of card.decisions) {
    const button = h("button", { type: "button", class: `cx-${decision}`, "data-decision": decision }, [label]);
    button.addEventListener("click", () => {
      disable();
      const chosen = boxes.filter((b) => b.input.checked).map((b) => b.grant);
      if (decision === "deny") model.send(answerPermissionsMessage(card.id, "deny"));
      else if (chosen.length === boxes.length) model.send(answerPermissionsMessage(card.id, decision));
      else model.send(grantMessage(card.id, chosen, decision === "allow_session" ? "session" : "turn"));
    });
    buttons.append(button);
  }
  const countdown = h("div", { class: "cx-countdown" });
  node.append(buttons, countdown);
  return { node, countdown };
}

/** A command (shown as is) or file changes (path and diff each), then each decision offered.
 * @param {any} model @param {any} card */
function approvalCard(model, card) {
  const titleId = `${card.id}-title`;
  const node = h("div", { class: "cx-prompt cx-approval", "data-request-id": card.id, role: "group",
    "aria-labelledby": titleId });
  node.append(h("div", { class: "cx-prompt-title", id: titleId }, [card.title]));
  if (card.reason) node.append(h("div", { class: "cx-reason" }, [card.reason]));
  if (card.command !== null) node.append(h("pre", { class: "cx-command" }, [card.command]));
  for (const change of card.changes) node.append(diffBlock(change));
  if (card.cwd) node.append(h("div", { class: "cx-cwd" }, [`cwd: ${card.cwd}`]));
  if (card.network) node.append(h("div", { class: "cx-cwd cx-network" }, [card.network]));
  return decisionButtons(node, card, model);
}

/** @param {HTMLElement} node @param {any} card @param {any} model */
function decisionButtons(node, card, model) {
  const buttons = h("div", { class: "cx-buttons cx-decisions" });
  for (const { decision, kind, label, detail } of card.decisions) {
    const button = h("button", { type: "button", class: `cx-${kind ?? decision}`, "data-decision": decision,
      title: detail || label }, [label]);
    button.addEventListener("click", () => {
      for (const b of buttons.querySelectorAll("button")) b.setAttribute("disabled", "");
      model.send(answerApprovalMessage(card.id, decision));
    });
    buttons.append(h("div", { class: "cx-decision" }, [button,
      ...(detail ? [h("span", { class: "cx-decision-detail" }, [detail])] : [])]));
  }
  const countdown = h("div", { class: "cx-countdown" });
  node.append(buttons, countdown);
  return { node, countdown };
}

/** One form field: its input and a reader of its value. @param {string} id @param {any} f */
function fieldInput(id, f) {
  const inputId = `${id}-${f.name}`;
  const label = h("label", { for: inputId, class: "cx-field-label" }, [f.label + (f.required ? " *" : "")]);
  const box = h("div", { class: "cx-field", "data-field": f.name }, [label]);
  /** @type {() => any} */
  let read;
  if (f.type === "boolean") {
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: inputId }));
    input.checked = Boolean(f.default);
    box.prepend(input);
    read = () => input.checked;
  } else if (f.type === "enum") {
    const select = /** @type {HTMLSelectElement} */ (h("select", { id: inputId }));
    select.append(h("option", { value: "" }, [f.required ? "Choose..." : "(none)"]));
    for (const o of f.options) select.append(h("option", { value: o.description }, [o.label]));
    select.value = f.default ?? "";
    box.append(select);
    read = () => select.value;
  } else if (f.type === "multi_enum") {
    const group = h("div", { class: "cx-multi", id: inputId, role: "group" });
    /** @type {HTMLInputElement[]} */
    const checks = [];
    for (const o of f.options) {
      const input = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", value: o.description }));
      input.checked = (f.default ?? []).includes(o.description);
      checks.push(input);
      group.append(h("label", { class: "cx-option" }, [input, ` ${o.label}`]));
    }
    box.append(group);
    read = () => checks.filter((c) => c.checked).map((c) => c.value);
  } else {
    const numeric = f.type === "number" || f.type === "integer";
    /** @type {Record<string, string>} */
    const attrs = { id: inputId, type: numeric ? "number" : inputType(f.format), autocomplete: "off" };
    if (numeric) {
      if (f.minimum !== null && f.minimum !== undefined) attrs.min = String(f.minimum);
      if (f.maximum !== null && f.maximum !== undefined) attrs.max = String(f.maximum);
      attrs.step = f.type === "integer" ? "1" : "any";
    }
    const input = /** @type {HTMLInputElement} */ (h("input", attrs));
    if (f.default !== null && f.default !== undefined) input.value = String(f.default);
    input.addEventListener("keydown", (ev) => {  // Enter submits, whatever the page does with Enter
      if (/** @type {KeyboardEvent} */ (ev).key === "Enter") {
        ev.preventDefault(); ev.stopPropagation(); /** @type {HTMLFormElement} */ (input.form)?.requestSubmit();
      }
    });
    box.append(input);
    read = () => input.value;
  }
  if (f.description) box.append(h("div", { class: "cx-option-desc" }, [f.description]));
  return { box, read };
}

/** A form elicitation (fields, Submit / Decline / Cancel) or a URL one (the URL as text, never
 * a link: the person decides to go there themselves). @param {any} model @param {any} card */
function elicitationCard(model, card) {
  const titleId = `${card.id}-title`;
  const form = /** @type {HTMLFormElement} */ (h("form", { class: "cx-prompt cx-elicitation",
    "data-request-id": card.id, "data-mode": card.mode, "aria-labelledby": titleId }));
  form.append(h("div", { class: "cx-prompt-title", id: titleId }, [card.title]),
    h("div", { class: "cx-q-text cx-elicitation-message" }, [card.message]));
  /** @type {{name: string, read: () => any}[]} */
  const readers = [];
  if (card.tool) {
    if (card.tool.description) form.append(h("div", { class: "cx-reason" }, [card.tool.description]));
    if (card.tool.params) form.append(h("pre", { class: "cx-command" }, [card.tool.params]));
  }
  if (card.mode === "url") {
    form.append(h("div", { class: "cx-domain" }, ["domain: ", h("b", {}, [card.domain ?? ""])]),
      h("code", { class: "cx-url" }, [card.url]),
      h("div", { class: "cx-waiting" }, ["codex_nb does not open it: accept only if you will visit it yourself."]));
  } else {
    for (const f of card.fields) {
      const { box, read } = fieldInput(card.id, f);
      readers.push({ name: f.name, read });
      form.append(box);
    }
  }
  const problem = h("div", { class: "cx-form-error", role: "alert" });
  const countdown = h("div", { class: "cx-countdown" });
  const buttons = h("div", { class: "cx-buttons" });
  const accept = h("button", { type: "submit", class: "cx-submit", "data-action": "accept" },
    [card.mode === "url" ? "Accept (I will open it)" : card.tool ? card.approvals[0].label : "Submit"]);
  const decline = h("button", { type: "button", "data-action": "decline" }, [card.tool ? "No" : "Decline"]);
  const cancel = h("button", { type: "button", "data-action": "cancel" }, ["Cancel"]);
  buttons.append(accept);
  /** @param {string} action @param {Record<string, any> | null} content @param {string | null} persist */
  const done = (action, content = null, persist = null) => {
    for (const b of buttons.querySelectorAll("button")) b.setAttribute("disabled", "");
    model.send(answerElicitationMessage(card.id, action, content, persist));
  };
  for (const { persist, label } of card.approvals.slice(1)) {  // an MCP tool call's longer approvals
    const longer = h("button", { type: "button", "data-action": "accept", "data-persist": persist }, [label]);
    longer.addEventListener("click", () => done("accept", {}, persist));
    buttons.append(longer);
  }
  buttons.append(decline, cancel);
  form.append(problem, buttons, countdown);
  decline.addEventListener("click", () => done("decline"));
  cancel.addEventListener("click", () => done("cancel"));
  form.addEventListener("input", () => { problem.textContent = ""; });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (card.mode === "url") { done("accept"); return; }
    const values = Object.fromEntries(readers.map((r) => [r.name, r.read()]));
    const built = buildElicitationContent(card.fields, values);
    if ("error" in built) { problem.textContent = built.error; return; }
    done("accept", built.content);
  });
  form.noValidate = true;  // the card checks the fields itself and says which one is wrong
  return { node: form, countdown };
}

const CARDS = { user_input: questionCard, permissions: permissionCard, approval: approvalCard,
  elicitation: elicitationCard };

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el }) {
    // JupyterLab's notebook shortcuts (Enter, Space, arrows...) would otherwise act on the cell
    // while a person types an answer; Lumino skips keybindings inside this attribute.
    const root = h("div", { class: "cx-prompts", "data-lm-suppress-shortcuts": "true" });
    const error = h("div", { class: "cx-prompts-error", role: "alert" });
    const empty = h("div", { class: "cx-prompts-empty" }, ["No pending questions."]);
    const list = h("div", { class: "cx-prompts-list" });
    root.append(error, empty, list);
    el.append(root);
    /** @type {Map<string, {node: HTMLElement, countdown: HTMLElement, deadline: number | null}>} */
    const cards = new Map();

    const sync = () => {
      const pending = model.get("requests") ?? [];
      const { remove, add } = diffCards([...cards.keys()], pending);
      for (const id of remove) { cards.get(id)?.node.remove(); cards.delete(id); }
      for (const p of add) {
        const card = cardModel(p);
        const built = (CARDS[/** @type {keyof typeof CARDS} */ (card.kind)] ?? permissionCard)(model, card);
        cards.set(p.id, { ...built, deadline: card.deadlineMs });
        list.append(built.node);
      }
      empty.hidden = cards.size > 0;
      tick();
    };
    const tick = () => {
      for (const c of cards.values()) c.countdown.textContent = countdownText(c.deadline, Date.now());
    };
    const showError = () => { error.textContent = model.get("error") ?? ""; error.hidden = !error.textContent; };

    model.on("change:requests", sync);
    model.on("change:error", showError);
    const timer = setInterval(tick, 1000);
    sync();
    showError();
    model.send(readyMessage(`view-${Math.random().toString(36).slice(2)}`));
    return () => {
      clearInterval(timer);
      model.off("change:requests", sync);
      model.off("change:error", showError);
      root.remove();
    };
  },
};
