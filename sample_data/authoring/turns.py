"""Turn constructors shared by the hand-written project files (see build.py for the turn kinds)."""


def U(text, label):
    return {"user": text, "label": label}


def A(text):
    return {"assistant": text}


def W(minutes):
    return {"wait": minutes}


def bash(command, description, result, is_error=False):
    turn = {"tool": "Bash", "input": {"command": command, "description": description},
            "result": result}
    if is_error:
        turn["is_error"] = True
    return turn


def read(path, result, **extra):
    args = {"file_path": path}
    args.update(extra)
    return {"tool": "Read", "input": args, "result": result}


def edit(path, old, new, result=None):
    if result is None:
        result = f"The file {path} has been updated successfully."
    return {"tool": "Edit", "input": {"file_path": path, "old_string": old, "new_string": new},
            "result": result}


def write(path, content, existed=False):
    result = (f"The file {path} has been updated successfully." if existed
              else f"File created successfully at: {path}")
    return {"tool": "Write", "input": {"file_path": path, "content": content}, "result": result}


def grep(pattern, result, path=None, output_mode="content", **extra):
    args = {"pattern": pattern, "output_mode": output_mode}
    if path:
        args["path"] = path
    args.update(extra)
    return {"tool": "Grep", "input": args, "result": result}


def todo(items, result="Todos have been modified successfully. Ensure that you continue to use "
         "the todo list to track your progress. Please proceed with the current tasks if "
         "applicable"):
    todos = [{"content": c, "status": s, "activeForm": f} for c, s, f in items]
    return {"tool": "TodoWrite", "input": {"todos": todos}, "result": result}


def sh(cmd, output, code=0, wall="0.3"):
    """A Codex exec_command round-trip."""
    return {"tool": "exec_command", "input": {"cmd": cmd},
            "result": f"Exit code: {code}\nWall time: {wall} seconds\nOutput:\n{output}"}


def patch(text, files):
    """A Codex apply_patch round-trip; files like "M apps/relay/src/ws/broadcast.ts"."""
    return {"tool": "apply_patch", "input": {"patch": text},
            "result": "Success. Updated the following files:\n" + files}
