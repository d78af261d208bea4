// "Rewind to here"'s one confirmation, shared by the transcript and the plan timeline: it says
// what a rewind to before a turn undoes (rewindQuestion: how many turns, files not restored),
// then Rewind sends the view's `rewind` request for that turn, and Cancel undoes nothing.
import { rewindQuestion } from "./transcript_view.js";

/**
 * The confirmation box (hidden until `ask`), one question at a time.
 * @param {{turns: () => string[], rewind: (turn: string) => void, className?: string}} options
 *   turns: the turns the kernel offers now, oldest first; rewind: send the request for a turn
 */
export function rewindConfirm({ turns, rewind, className = "" }) {
  const box = document.createElement("div");
  box.className = `cx-rewind-confirm ${className}`.trim();
  box.setAttribute("role", "alertdialog");
  box.hidden = true;
  const question = document.createElement("p");
  const yes = document.createElement("button");
  yes.type = "button";
  yes.textContent = "Rewind";
  const no = document.createElement("button");
  no.type = "button";
  no.textContent = "Cancel";
  box.append(question, yes, no);
  /** @type {string | null} */
  let asking = null;
  const close = () => {
    asking = null;
    box.hidden = true;
  };
  yes.addEventListener("click", () => {
    if (asking) rewind(asking);
    close();
  });
  no.addEventListener("click", close);
  return {
    box,
    /** @param {string} turn */
    ask(turn) {
      asking = turn;
      question.textContent = rewindQuestion(turn, turns());
      box.hidden = false;
      yes.focus();
    },
    /** Close the question when its turn is no longer offered (it went meanwhile). */
    follow() {
      if (asking && !turns().includes(asking)) close();
    },
  };
}
