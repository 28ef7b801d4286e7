"""The local sandbox: King Me in the browser with no Discord at all. The real bot runs against the local Discord
emulator, and a page that looks and behaves like a Discord channel lets a few local users play (``kingme sandbox``).
"""

from bot.sandbox._bridge import FILES_PATH, SOCKET_PATH, SandboxBridge

__all__ = ["FILES_PATH", "SOCKET_PATH", "SandboxBridge"]
