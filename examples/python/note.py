#!/usr/bin/env python3
"""A Tick with Python's standard library only: a note that a person sees and an agent can set."""
import datetime, json, os, signal, threading

REVISION = "1"
DESCRIPTOR = {
    "protocol": 3, "kind": "example.pynote", "title": "Note (Python)", "revision": REVISION,
    "description": "One line of text, shown on screen.",
    "tools": [
        {"name": "set_note", "description": "Replace the note.", "mutates": True,
         "input_schema": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 10000}},
                          "required": ["text"], "additionalProperties": False}},
        {"name": "get_note", "description": "Read the note.", "mutates": False,
         "input_schema": {"type": "object", "additionalProperties": False}},
    ],
}

# The protocol gets private copies of stdin and stdout; fds 0 and 1 then lead to /dev/null, so a
# stray print() or a child process can neither break a line nor steal a request.
requests = os.fdopen(os.dup(0), encoding="utf-8", errors="replace")
out = os.fdopen(os.dup(1), "w", encoding="utf-8")
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 0)
os.dup2(null, 1)
out_lock = threading.Lock()    # one whole line per message, never interleaved
state_lock = threading.Lock()  # seq and note change together
seq, note = 0, ""

class Refusal(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code

def send(message):
    line = json.dumps({"jsonrpc": "2.0", **message}) + "\n"  # json.dumps never emits a raw newline
    with out_lock:
        out.write(line)
        out.flush()

def state():
    at = datetime.datetime.now(datetime.timezone.utc).isoformat()
    return {"seq": seq, "data": {"note": note}, "at": at}

def draw():  # the UI goes to the controlling terminal, never to stdout
    try:
        with open("/dev/tty", "w") as tty:
            shown = "".join(c if c.isprintable() else "?" for c in note)
            tty.write("\x1b[H\x1b[2J Note: " + shown + "\n")
    except OSError:
        pass  # no terminal (tests, pipes): serve without a UI

def call(params):
    global seq, note
    if params.get("revision") != REVISION:
        raise Refusal(-32004, "the tool catalog changed; describe the Tick and prepare the call again")
    tool, args = params.get("tool"), params.get("args")
    args = {} if args is None else args
    if tool == "get_note" and args == {}:
        return {"note": note}
    if tool == "set_note" and isinstance(args, dict) and set(args) == {"text"} \
            and isinstance(args["text"], str) and len(args["text"]) <= 10000:
        with state_lock:
            seq, note = seq + 1, args["text"]
            send({"method": "tick/update", "params": state()})
        draw()
        return {"note": note}
    raise Refusal(-32602, "unknown tool, or args that do not fit its input_schema")

def answer(id, method, params):
    try:
        if method == "tick/describe":
            result = DESCRIPTOR
        elif method == "tick/read":
            with state_lock:
                result = state()
        elif method == "tick/call":
            result = call(params)
        else:
            raise Refusal(-32601, "a Tick answers tick/describe, tick/read and tick/call only")
        send({"id": id, "result": result})
    except Refusal as refusal:
        send({"id": id, "error": {"code": refusal.code, "message": str(refusal)}})
    except Exception as error:  # failed while running: the effect is unknown
        send({"id": id, "error": {"code": -32000, "message": str(error)}})

def main():
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))  # the host's way to end a Tick
    draw()
    calls = []
    for line in requests:
        try:
            request = json.loads(line)
            id = request["id"]
        except (ValueError, TypeError, KeyError):
            continue  # unparseable, or no id: dropped without a reply
        if type(id) is not int or not 0 <= id < 2**53:
            continue
        method, params = request.get("method"), request.get("params")
        params = {} if params is None else params
        if request.get("jsonrpc") != "2.0" or not isinstance(method, str) or not isinstance(params, dict):
            send({"id": id, "error": {"code": -32600, "message": "not a Tick protocol request"}})
        elif method == "tick/call":  # calls run concurrently; describe and read answer at once
            calls.append(threading.Thread(target=answer, args=(id, method, params)))
            calls[-1].start()
        else:
            answer(id, method, params)
    for thread in calls:  # stdin ended: finish the calls in flight, then exit
        thread.join()

main()
