"""The echo tool of `bench/run.sh --bindings`, written the way examples/python/notes_server.py
is (a typed function; a plain `def`, on the loop, rescued when it blocks: picomcp._rescue)."""
from picomcp import Server

app = Server("echo-typed", "1.0.0")


@app.tool
def echo(text: str) -> str:
    """Returns its text."""
    return text


if __name__ == "__main__":
    app.run()
