"""How long validate.py waits: one request, the demo's watched resource, the exit, one
revision's conversation and the whole run. `--timeout-scale N` multiplies them all
(`scale`); readers use `timeouts.NAME` at the time they wait, so they see the scaled value."""

STEP_TIMEOUT_S = 5.0        # one request's answer
UPDATE_WAIT_S = 6.0         # the demo's watched resource changes every 3 s
DRAIN_TIMEOUT_S = 5.0       # output after EOF, and the exit
REVISION_BUDGET_S = 45.0    # one revision's whole conversation
HARD_LIMIT_S = 58.0         # watchdog for the whole run


def scale(n: float) -> None:
    """--timeout-scale: every timeout above times n."""
    global STEP_TIMEOUT_S, UPDATE_WAIT_S, DRAIN_TIMEOUT_S, REVISION_BUDGET_S, HARD_LIMIT_S
    STEP_TIMEOUT_S *= n
    UPDATE_WAIT_S *= n
    DRAIN_TIMEOUT_S *= n
    REVISION_BUDGET_S *= n
    HARD_LIMIT_S *= n
