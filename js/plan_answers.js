// The plan answers view: the agent's steps (replaced whole on each snapshot), each with a
// Comment control and its comments; a Suggest control for the whole list; Approve / Revise /
// Reject when a Plan-mode turn ended with a proposed plan. State comes from synced traits;
// each control sends one protocol.json `plan_answers` message, and the kernel replies by id in
// `last_reply` (sent, or refused with the reason). Texts are set with textContent, never HTML.
import { el } from "./dom.js";
import { icon } from "./icons.js";
import { ANSWERS_TO_KERNEL, newRequestId } from "./protocol.js";

/** @typedef {{index: number, step: string, status: string}} Step */
/** @typedef {{id: string, step_index: number, step: string, text: string, state: string, label: string, renamed_to: string | null}} Comment */
/** @typedef {{id: string, diff: string, state: string, label: string}} Suggestion */

const MARK = /** @type {Record<string, string>} */ ({ pending: "□", in_progress: "■", completed: "✔" });

/**
 * A browser -> kernel request of the plan answers view.
 * @param {string} kind
 * @param {Record<string, unknown>} fields
 */
export function answersRequest(kind, fields = {}) {
  if (!(kind in ANSWERS_TO_KERNEL)) throw new Error(`unknown plan answers message kind ${JSON.stringify(kind)}`);
  return { id: newRequestId(), kind, ...fields };
}

/**
 * Where each comment is drawn: beside its step (by text, its first place, then the text the agent
 * renamed it to), or apart when the step is gone (as the Python ``comments_by_step``).
 * @param {Step[]} steps
 * @param {Comment[]} comments
 */
export function commentsByStep(steps, comments) {
  /** @type {Map<number, Comment[]>} */
  const by = new Map();
  /** @type {Comment[]} */
  const orphans = [];
  const texts = steps.map((s) => s.step);
  for (const c of comments) {
    let index = c.step_index;
    if (texts[index] !== c.step) {
      const target = texts.includes(c.step) ? c.step : c.renamed_to;
      index = target == null ? -1 : texts.indexOf(target);
    }
    if (index < 0) orphans.push(c);
    else by.set(index, [...(by.get(index) ?? []), c]);
  }
  return { by, orphans };
}

/** @param {string} label @param {string} action */
function button(label, action) {
  const b = /** @type {HTMLButtonElement} */ (el("button", "cx-pa-button", label));
  b.type = "button";
  b.dataset.action = action;
  return b;
}

/**
 * The turns the person's answers started, each with its messages ("You" / "Agent"), so an answer
 * that starts a turn shows that turn and the agent's reply where it was given.
 * @param {{turn_id: string, messages: {role: string, text: string}[]}[]} turns
 */
export function startedTurns(turns) {
  return turns.map((turn) => {
    const box = el("div", "cx-pa-turn");
    box.setAttribute("role", "log");
    box.setAttribute("aria-label", "Turn your answer started");
    box.append(el("div", "cx-pa-title", "Turn your answer started"));
    for (const m of turn.messages) {
      const line = el("div", `cx-pa-message cx-pa-${m.role === "user" ? "you" : "agent"}`);
      line.append(el("span", "cx-pa-who", m.role === "user" ? "You" : "Agent"), el("span", "cx-pa-said", m.text));
      box.append(line);
    }
    if (!turn.messages.some((m) => m.role === "assistant")) box.append(el("div", "cx-pa-label", "No answer from the agent yet."));
    return box;
  });
}

/**
 * Which send controls the view offers: none for a source that takes no answers (a replay: its
 * capabilities say so), which still shows the plan and the answers given.
 * @param {{can_send?: boolean, steps: number, suggesting: boolean, proposal: boolean}} state
 */
export function sendControls({ can_send, steps, suggesting, proposal }) {
  const canSend = can_send !== false;
  return { comment: canSend, suggest: canSend && steps > 0 && !suggesting, decide: canSend && proposal };
}

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el: host }) {
    const controller = new AbortController();
    const root = el("div", "cx-plan-answers");
    root.dataset.lmSuppressShortcuts = "true";  // typing in a comment must not act on the notebook
    root.setAttribute("role", "group");
    root.setAttribute("aria-label", "Answer the plan");
    host.append(root);
    /** @type {string | null} */
    let pendingId = null;
    /** @type {number | null} */
    let editing = null;
    let suggesting = false;
    let revising = false;

    /** @param {Record<string, unknown>} request */
    const send = (request) => {
      pendingId = /** @type {string} */ (request.id);
      model.send(request);
      draw();
    };

    /**
     * @param {string} placeholder
     * @param {string} value
     * @param {(text: string) => void} onSend
     * @param {() => void} onCancel
     */
    const editor = (placeholder, value, onSend, onCancel) => {
      const box = el("div", "cx-pa-editor");
      const area = /** @type {HTMLTextAreaElement} */ (el("textarea", "cx-pa-text"));
      area.placeholder = placeholder;
      area.value = value;
      area.setAttribute("aria-label", placeholder);
      const ok = button("Send", "send");
      const cancel = button("Cancel", "cancel");
      ok.addEventListener("click", () => onSend(area.value), { signal: controller.signal });
      cancel.addEventListener("click", onCancel, { signal: controller.signal });
      box.append(area, ok, cancel);
      queueMicrotask(() => area.focus());
      return box;
    };

    const draw = () => {
      /** @type {Step[]} */
      const steps = model.get("steps") ?? [];
      /** @type {Comment[]} */
      const comments = model.get("comments") ?? [];
      /** @type {Suggestion[]} */
      const suggestions = model.get("suggestions") ?? [];
      const proposal = model.get("proposal") ?? {};
      const reply = model.get("last_reply") ?? {};
      const offers = sendControls({
        can_send: model.get("can_send"), steps: steps.length, suggesting, proposal: proposal.text !== undefined,
      });
      root.replaceChildren();
      const { by, orphans } = commentsByStep(steps, comments);
      const list = el("ol", "cx-pa-steps");
      for (const step of steps) {
        const item = el("li", "cx-pa-step");
        item.dataset.status = step.status;
        const row = el("div", "cx-pa-row");
        row.append(el("span", "cx-pa-mark", MARK[step.status] ?? "?"), el("span", "cx-pa-step-text", step.step));
        const open = button("Comment", "comment");
        open.setAttribute("aria-label", `Comment on step ${step.index + 1}: ${step.step}`);
        open.addEventListener("click", () => { editing = step.index; draw(); }, { signal: controller.signal });
        if (offers.comment) row.append(open);
        item.append(row);
        for (const c of by.get(step.index) ?? []) {
          const line = el("div", `cx-pa-comment cx-pa-${c.state}`);
          line.append(icon("comment"), el("span", "cx-pa-comment-text", c.text), el("span", "cx-pa-label", c.label));
          item.append(line);
        }
        if (editing === step.index) {
          item.append(editor(`Your comment on “${step.step}”`, "", (text) => {
            editing = null;
            send(answersRequest("comment", { step: step.index, text }));
          }, () => { editing = null; draw(); }));
        }
        list.append(item);
      }
      root.append(steps.length ? list : el("div", "cx-pa-empty", "No plan yet."));
      for (const c of orphans) {
        const line = el("div", `cx-pa-comment cx-pa-orphan cx-pa-${c.state}`);
        line.append(icon("comment"), el("span", "cx-pa-comment-text", `On “${c.step}”: ${c.text}`), el("span", "cx-pa-label", c.label));
        root.append(line);
      }
      for (const s of suggestions) {
        const box = el("div", `cx-pa-suggestion cx-pa-${s.state}`);
        box.append(el("span", "cx-pa-label", `Suggested change: ${s.label}`), el("pre", "cx-pa-diff", s.diff));
        root.append(box);
      }
      const actions = el("div", "cx-pa-actions");
      if (offers.suggest) {
        const suggest = button("Suggest a change", "suggest");
        suggest.addEventListener("click", () => { suggesting = true; draw(); }, { signal: controller.signal });
        actions.append(suggest);
      }
      root.append(actions);
      if (suggesting) {
        root.append(editor("The plan as you propose it, one step a line", steps.map((s) => s.step).join("\n"), (text) => {
          suggesting = false;
          send(answersRequest("suggest", { steps: text.split("\n").map((l) => l.trim()).filter((l) => l) }));
        }, () => { suggesting = false; draw(); }));
      }
      if (proposal.text !== undefined) {
        const box = el("div", "cx-pa-proposal");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", "Proposed plan");
        box.append(el("div", "cx-pa-title", "Implement this plan?"), el("pre", "cx-pa-proposal-text", proposal.text));
        const approve = button("Approve", "approve");
        const revise = button("Revise", "revise");
        const reject = button("Reject", "reject");
        approve.addEventListener("click", () => send(answersRequest("approve")), { signal: controller.signal });
        revise.addEventListener("click", () => { revising = true; draw(); }, { signal: controller.signal });
        reject.addEventListener("click", () => send(answersRequest("reject")), { signal: controller.signal });
        if (offers.decide) box.append(approve, revise, reject);
        if (revising) {
          box.append(editor("What should the plan change?", "", (text) => {
            revising = false;
            send(answersRequest("revise", { text }));
          }, () => { revising = false; draw(); }));
        }
        root.append(box);
      }
      for (const d of model.get("decisions") ?? []) {
        root.append(el("div", `cx-pa-decision cx-pa-${d.decision}`,
          `Proposed plan ${d.decision}${d.comment ? `: ${d.comment}` : ""}`));
      }
      root.append(...startedTurns(model.get("turns") ?? []));
      const status = el("div", "cx-pa-status");
      status.setAttribute("role", "status");
      if (model.get("error")) status.textContent = model.get("error");
      else if (pendingId !== null && reply.id !== pendingId) status.textContent = "Sending…";
      else if (reply.id === pendingId && reply.outcome === "refused") status.textContent = `Not sent: ${reply.message}`;
      else if (model.get("notice")) status.textContent = model.get("notice");
      root.dataset.reply = reply.id === pendingId ? reply.outcome ?? "" : "";
      root.append(status);
    };
    const names = ["steps", "comments", "suggestions", "proposal", "decisions", "notice", "last_reply", "error", "turns", "can_send"];
    for (const name of names) model.on(`change:${name}`, draw);
    draw();
    return () => {
      controller.abort();
      for (const name of names) model.off(`change:${name}`, draw);
    };
  },
};
