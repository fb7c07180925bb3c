"""losslessd configuration files for the VM tests and benches: one pool
named "sw0" and its ports, in the TOML of docs/DAEMON.md.

    losslessd_config(SOCK, PIN, ["if0", "if1"], pool={"buffer": "2mb"},
                     rate="100mbit", extra_pool='alpha = "1/4"')
"""


def toml_value(v):
    """A Python value as a TOML value (strings quoted, lists of ints)."""
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return str(v)


def losslessd_config(socket, pin_dir, ports, pool, rate, extra_pool="", period="1ms"):
    """The text of a config with [daemon], pool "sw0" (policy pfc-dt plus
    the keys of `pool`, then the raw TOML lines `extra_pool`) and one
    [[port]] per name in `ports` at `rate`."""
    text = f'''[daemon]
socket = "{socket}"
pin-dir = "{pin_dir}"
period = "{period}"

[[pool]]
name = "sw0"
policy = "pfc-dt"
'''
    text += "".join(f"{k} = {toml_value(v)}\n" for k, v in pool.items())
    text += extra_pool + "\n"
    for p in ports:
        text += f'''
[[port]]
dev = "{p}"
pool = "sw0"
rate = "{rate}"
'''
    return text
