// The prompts widget view: one card per pending request (a question form or a permission
// prompt). Pending requests come from the synced `requests` trait; answers go back with
// model.send({id, kind, ...}). Cards are keyed by request id, so typing in one card survives
// updates of the others; a settled request's card disappears when the kernel drops it.
import { answerApprovalMessage, answerPermissionsMessage, answerUserInputMessage, buildAnswers, cardModel, countdownText, diffCards, readyMessage } from "./prompts_view.js";

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
  const form = h("form", { class: "cx-prompt cx-question", "data-request-id": card.id });
  form.append(h("div", { class: "cx-prompt-title" }, [card.title]));
  for (const q of card.questions) {
    selections[q.id] = { choice: null, note: "" };
    const box = h("fieldset", { class: "cx-q", "data-question-id": q.id },
      [h("legend", {}, [q.header]), h("div", { class: "cx-q-text" }, [q.question])]);
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
      placeholder: q.secret ? "Secret answer (hidden)" : "Other / note", autocomplete: "off" });
    note.addEventListener("input", () => { selections[q.id].note = /** @type {HTMLInputElement} */ (note).value; });
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

/** @param {any} model @param {any} card */
function permissionCard(model, card) {
  const node = h("div", { class: "cx-prompt cx-permission", "data-request-id": card.id });
  node.append(h("div", { class: "cx-prompt-title" }, [card.title]));
  if (card.reason) node.append(h("div", { class: "cx-reason" }, [card.reason]));
  node.append(h("ul", { class: "cx-what" }, card.lines.map((/** @type {string} */ l) => h("li", {}, [l]))));
  if (card.cwd) node.append(h("div", { class: "cx-cwd" }, [`cwd: ${card.cwd}`]));
  return decisionButtons(node, card, model);
}

/** A command (shown as is) or file changes (path and diff each), then the three answers.
 * @param {any} model @param {any} card */
function approvalCard(model, card) {
  const node = h("div", { class: "cx-prompt cx-approval", "data-request-id": card.id });
  node.append(h("div", { class: "cx-prompt-title" }, [card.title]));
  if (card.reason) node.append(h("div", { class: "cx-reason" }, [card.reason]));
  if (card.command !== null) node.append(h("pre", { class: "cx-command" }, [card.command]));
  for (const change of card.changes) {
    node.append(h("div", { class: "cx-file" }, [`${change.kind}: ${change.path}`]),
      h("pre", { class: "cx-diff" }, [change.diff]));
  }
  if (card.cwd) node.append(h("div", { class: "cx-cwd" }, [`cwd: ${card.cwd}`]));
  return decisionButtons(node, card, model);
}

/** @param {HTMLElement} node @param {any} card @param {any} model */
function decisionButtons(node, card, model) {
  const send = (/** @type {string} */ decision) => (card.kind === "approval"
    ? model.send(answerApprovalMessage(card.id, decision))
    : model.send(answerPermissionsMessage(card.id, decision)));
  const buttons = h("div", { class: "cx-buttons" });
  for (const { decision, label } of card.decisions) {
    const button = h("button", { type: "button", class: `cx-${decision}`, "data-decision": decision }, [label]);
    button.addEventListener("click", () => {
      for (const b of buttons.querySelectorAll("button")) b.setAttribute("disabled", "");
      send(decision);
    });
    buttons.append(button);
  }
  const countdown = h("div", { class: "cx-countdown" });
  node.append(buttons, countdown);
  return { node, countdown };
}

const CARDS = { user_input: questionCard, permissions: permissionCard, approval: approvalCard };

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el }) {
    const root = h("div", { class: "cx-prompts" });
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
