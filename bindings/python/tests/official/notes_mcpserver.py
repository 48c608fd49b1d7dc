"""The notes server of examples/python/notes_server.py on the official SDK (mcp 2.3.0,
the decorator API `MCPServer`), for comparison: test_notes.py checks that ours is no
longer, and runs both under the official client."""
import itertools
from dataclasses import dataclass

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

app = MCPServer("notes")
notes: dict = {}
ids = itertools.count(1)


@dataclass
class Note:
    id: int
    title: str
    body: str


@dataclass
class Found:
    notes: list[Note]


@app.tool()
def add_note(title: str, body: str) -> Note:
    """Adds a note and returns it."""
    n = next(ids)
    notes[n] = Note(n, title, body)
    return notes[n]


@app.tool()
def search_notes(query: str, limit: int = 10) -> Found:
    """Finds the notes whose title or body contains `query` (any case)."""
    q = query.lower()
    return Found([n for n in notes.values() if q in (n.title + n.body).lower()][:limit])


@app.resource("note://{id}", mime_type="text/markdown")
def note(id: int) -> str:
    """One note, as Markdown."""
    if id not in notes:
        raise ResourceError(f"note://{id} not found")
    return f"# {notes[id].title}\n\n{notes[id].body}"


@app.prompt()
def summarize(topic: str) -> str:
    """Asks for a summary of the notes about a topic."""
    return f"Summarize my notes about {topic}. Use search_notes first."


if __name__ == "__main__":
    app.run()
