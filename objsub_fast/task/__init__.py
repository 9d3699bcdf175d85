"""The task model: vocabulary, parameter checks (config), the counter-based RNG, scenes
and their pixel rules, units, prompt interpretation and task records."""
