#!/usr/bin/env python3
"""kill -9 the gateway between a keyed write reaching the backend and its answer being recorded.

`daygate simulate` runs the backends in their own process, so the write goes on after the
gateway dies. `daygate serve` adds a task to the Tickedify inbox with an `Idempotency-Key`
while Tickedify takes 1.5 s to answer; the moment the simulator has the request, the gateway
is killed with SIGKILL. The simulator then does the write. After a restart on the same state
folder, a retry with the same key must not write again: it answers 409
`idempotency_outcome_unknown`, and the inbox holds the task exactly once. Then everything is
normal: a new key writes once and replays, and reads work.

    python3 Tests/Durability/idempotency_crash_test.py [path/to/daygate]
"""
import json
import os
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import Checks  # noqa: E402
from gateway_processes import call, simulators_and_gateway  # noqa: E402

ADD = "POST /api/taak/add-to-inbox"
checks = Checks("idempotency crash")
check = checks.check


def add(port, title, key, timeout=15):
    return call(port, "/v1/tasks", "POST", {"title": title}, headers={"Idempotency-Key": key}, timeout=timeout)


def inbox_count(port, title):
    status, _, body = call(port, "/v1/tasks?list=inbox", headers={"Cache-Control": "no-cache"})
    assert status == 200, f"the inbox answered {status}"
    return sum(1 for task in body["tasks"] or [] if task["title"] == title)


def adds_seen(sims):
    return sims.call("tickedify", "/_sim/stats")["calls"].get(ADD, 0)


def main():
    title = f"Crash {uuid.uuid4().hex[:8]}"
    key = f"crash-{uuid.uuid4().hex}"
    with simulators_and_gateway("idempotency") as (sims, gateway):
        gateway.start()

        def write_lost_in_a_crash():
            status, _, _ = call(gateway.port, "/v1/tasks?list=inbox")  # logged in, session proven
            assert status == 200, f"the inbox answered {status}"
            before = adds_seen(sims)
            sims.call("tickedify", "/_sim/faults", "POST", {"latency_ms": 1500})
            outcome = {}
            sender = threading.Thread(target=lambda: outcome.update(result=_try(add, gateway.port, title, key)), daemon=True)
            sender.start()
            deadline = time.time() + 10
            while adds_seen(sims) == before and time.time() < deadline:
                time.sleep(0.005)
            assert adds_seen(sims) == before + 1, "the write never reached Tickedify"
            code = gateway.kill9()
            sender.join(5)
            time.sleep(2)  # the simulator finishes the write it has
            sims.call("tickedify", "/_sim/faults", "POST", {})
            return f"killed with {code} while Tickedify held the write; the client saw {outcome.get('result')}"
        check("the gateway dies between the backend's write and its record", write_lost_in_a_crash)

        def retried_after_restart():
            status, _ = gateway.start()
            assert status == 200, f"/readyz answered {status} after the restart"
            status, _, body = add(gateway.port, title, key)
            assert status == 409, f"the retry answered {status}: {body}"
            assert body["error"]["code"] == "idempotency_outcome_unknown", body
            status, _, body = add(gateway.port, title, key)
            assert status == 409, f"a second retry answered {status}: {body}"
            count = inbox_count(gateway.port, title)
            assert count == 1, f"the task is in the inbox {count} times"
            return f"409 idempotency_outcome_unknown, the task once in the inbox: {body['error']['message'][:80]}…"
        check("a retry with the key after the restart does not write again", retried_after_restart)

        def normal_afterwards():
            fresh_title, fresh_key = f"Daarna {uuid.uuid4().hex[:8]}", f"after-{uuid.uuid4().hex}"
            status, _, _ = add(gateway.port, fresh_title, fresh_key)
            assert status == 201, f"a new key answered {status}"
            status, headers, _ = add(gateway.port, fresh_title, fresh_key)
            assert status == 201 and headers.get("idempotent-replayed") == "true", f"the replay answered {status} {headers}"
            assert inbox_count(gateway.port, fresh_title) == 1
            status, _, body = call(gateway.port, "/readyz")
            assert status == 200 and body["status"] == "ready", f"/readyz: {status} {json.dumps(body)}"
            return "a new key writes once and replays; /readyz ready"
        check("everything is normal afterwards", normal_afterwards)
    return checks.finish()


def _try(function, *args):
    try:
        status, _, body = function(*args)
        return f"{status}"
    except Exception as error:  # noqa: BLE001 - the gateway was killed under it
        return type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
