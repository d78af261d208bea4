"""The composition root: Session, the turn loop, history repair, ScriptedModel, call records.

Everything below (tools/, hooks/, code_mode/, events/, frontend/) is wired together here;
nothing below imports runtime/.
"""
