"""The Hopper attention kernel's A/B switches, from tests/gpu/hopper_switches
(its top comment says what each field is for): {variant: (note words,
label)}; tests/gpu/switch.sh reads the settings."""
import os


def load():
    switches = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hopper_switches")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            variant, _settings, words, label = (x.strip() for x in line.split("|"))
            switches[variant] = (words, label)
    return switches


SWITCHES = load()
