"""Who answers the questions a turn asks (``request_user_input``, ``request_permissions``, command
and file-change approvals, MCP elicitations) when no prompts widget is shown: ``AnswerPolicy``
(also ``cx.AnswerPolicy``), the environment variable that picks one for a bare session, and the
errors of a bad answer or policy.
"""

from .frontend.answer_policy import AnswerPolicy, AnswerPolicyError, ENV_VAR
from .frontend.requests import AnswerError

__all__ = [
    "ENV_VAR",
    "AnswerError",
    "AnswerPolicy",
    "AnswerPolicyError",
]
