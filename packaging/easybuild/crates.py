#!/usr/bin/env python3
"""Writes packaging/easybuild/mpibench-VERSION.eb: the easyconfig template
(mpibench.eb.in) with the `crates` list of the Cargo easyblock generated
from Cargo.lock (every crate from crates.io, as (name, version)).

    python3 packaging/easybuild/crates.py [Cargo.lock]
"""
import os
import re
import sys
import tomllib

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
lock = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, 'Cargo.lock')
with open(lock, 'rb') as f:
    packages = tomllib.load(f)['package']
crates = sorted((p['name'], p['version']) for p in packages
                if p.get('source', '').startswith('registry+'))
with open(os.path.join(root, 'Cargo.toml'), 'rb') as f:
    version = tomllib.load(f)['package']['version']
with open(os.path.join(here, 'mpibench.eb.in')) as f:
    template = f.read()
lines = ''.join(f"    ('{n}', '{v}'),\n" for n, v in crates)
text = template.replace('@VERSION@', version).replace('@CRATES@\n', lines)
out = os.path.join(here, f'mpibench-{version}.eb')
with open(out, 'w') as f:
    f.write(text)
print(f'{out}: {len(crates)} crates from {lock}')
