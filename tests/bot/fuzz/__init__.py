"""A fuzz test of the whole front end: random and hostile requests from random people in random servers, channels
and threads, with invariants checked after every step (:mod:`tests.bot.fuzz._invariants`).

How the work is split, and why. A request through the emulated Discord (a gateway event to the real discord.py client,
the cog's handler, one or more HTTP calls back) costs several milliseconds even with eight people acting at once, so
100,000 of them would take minutes on CI's two cores. The fuzz is therefore in two tests, both on real Redis with
keyspace notifications (the invariants see every write, whoever made it) and with real AI turns (the AI in two
threads, :class:`bot.pool.ThreadChooser`, the bot's ``USE_THREADS`` backend; levels mostly ``easy``, every level's
thinking capped at 50 ms):

- :mod:`.test_service_fuzz`: 100,000 requests through :class:`bot.service.GameService`, the same calls the cog makes
  (challenges, games against the AI, exhibitions, moves as text and as menu indexes with versions, draws, takebacks,
  resignations, rematches, boards recorded, queries, privacy, rate limits, the sweeper after jumps of the clock), with
  random arguments: well-formed ids of real games and challenges, other servers' records, malformed and key-like ids,
  stale and absurd versions, illegal and garbage moves, hostile names, out-of-range and non-finite times, broken FENs.
  Only the service's typed errors and the rules' own may come back.
- :mod:`.test_discord_fuzz`: 5,000 interactions (``KINGME_FUZZ_DISCORD_STEPS``) through the real discord.py client on
  the emulator (:mod:`bot.emulator`): every ``/checkers`` command with random options of the types Discord allows,
  autocomplete, clicks and menu choices on the bot's messages (current and old boards, other people's games,
  challenges, confirmations, reviews) and on forged components whose ids fit the bot's templates; the first 85% with
  the games' test limits, then, after a restart of the bot, the rest with the shipped rate limits ("slow down"). The
  answers are checked by shape (answered, never the internal-error text, no empty ephemeral message), never by their
  words.

Both run their steps in eight concurrent lanes (``KINGME_FUZZ_LANES``), so people act at the same time and races are
part of the fuzz. A run uses a fixed seed unless ``KINGME_FUZZ_SEED`` names one (``random`` draws a fresh one) and
prints it; ``KINGME_FUZZ_SEED=<seed>`` replays the same random choices (the AI's timing
and the lanes' interleaving are real, so a replay may take another path: ``KINGME_FUZZ_LANES=1`` narrows it). A failure
names the step, the replay command and the last 30 steps. ``KINGME_FUZZ_SERVICE_STEPS`` changes the service's count.
"""
