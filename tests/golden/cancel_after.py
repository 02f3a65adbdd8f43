#!/usr/bin/env python3
"""Run the oracle (ragflow_ref.run_canvas) and cancel its task SECONDS after the first
`Canvas.run()` starts, the way RAGFlow's API does it (`Canvas.cancel_task()`: the
`<task_id>-cancel` key set in Redis, here the oracle's in-process Redis). Used by regen.py for
cases with "cancel_after".

Usage (from the oracle folder): $RAGFLOW_PY cancel_after.py SECONDS <run_canvas arguments>
Contains no RAGFlow code; it only drives the oracle.
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.getcwd())  # the oracle folder holds ragflow_ref/


def main():
    seconds = float(sys.argv[1])
    stdout, sys.stdout = sys.stdout, sys.stderr  # imports print warnings; stdout is the stream
    from ragflow_ref import bootstrap, run_canvas

    bootstrap.install()
    from agent.canvas import Canvas

    sys.stdout = stdout

    run = Canvas.run

    def run_then_cancel(self, **kwargs):
        # Canvas.reset() (called before run) clears the key, so the timer starts here.
        def cancel():
            time.sleep(seconds)
            self.cancel_task()

        threading.Thread(target=cancel, daemon=True).start()
        return run(self, **kwargs)

    Canvas.run = run_then_cancel
    run_canvas.main(sys.argv[2:])


if __name__ == "__main__":
    main()
