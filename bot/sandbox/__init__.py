"""The local sandbox: King Me in the browser with no Discord at all. The real bot runs against the local Discord
emulator, and a page that looks and behaves like a Discord channel lets a few local users play (``kingme sandbox``).
"""

from bot.sandbox._bridge import FILES_PATH, REFUSED, SOCKET_PATH, SandboxBridge
from bot.sandbox._key import KEY_FILE, kept_key
from bot.sandbox._places import open_private_places

__all__ = ["FILES_PATH", "KEY_FILE", "REFUSED", "SOCKET_PATH", "SandboxBridge", "kept_key", "open_private_places"]
