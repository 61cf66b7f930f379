"""The language-agent track (docs/language-agents.md): text observations, the action parser, the
system prompt, the rolling prompt history, a rule-based text agent, the OpenAI-compatible team
harness and the episode viewer.

Everything here reads the world through ``alem_pz.text.view`` (one accessor module over a host
copy of the state), so the symbolic and batched hot paths pay nothing for text.
"""
