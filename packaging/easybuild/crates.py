#!/usr/bin/env python3
"""Writes packaging/easybuild/mpibench-VERSION.eb: the easyconfig template
(mpibench.eb.in) with the `crates` list of the Cargo easyblock generated
from Cargo.lock (every crate from crates.io, as (name, version)).

    python3 packaging/easybuild/crates.py [Cargo.lock]
    python3 packaging/easybuild/crates.py --fetch DIR [Cargo.lock]

--fetch DIR also downloads every crate from static.crates.io into DIR in
EasyBuild's source-path layout (DIR/c/crates.io/NAME-VERSION.tar.gz, where
EasyBuild 5's Cargo easyblock looks for a crate), for `eb --sourcepath=DIR` on a machine
that reaches crate downloads but not crates.io's API (the easyblock's own
source URL); a crate already there is kept.
"""
import os
import re
import sys
import tomllib

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
args = sys.argv[1:]
fetch = None
if args[:1] == ['--fetch']:
    if len(args) < 2:
        sys.exit('crates.py: --fetch needs a directory')
    fetch, args = args[1], args[2:]
lock = args[0] if args else os.path.join(root, 'Cargo.lock')
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

if fetch:
    import urllib.request
    dest = os.path.join(fetch, 'c', 'crates.io')
    os.makedirs(dest, exist_ok=True)
    got = 0
    for n, v in crates:
        path = os.path.join(dest, f'{n}-{v}.tar.gz')
        if os.path.exists(path):
            continue
        url = f'https://static.crates.io/crates/{n}/{n}-{v}.crate'
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                data = r.read()
        except OSError as e:
            sys.exit(f'crates.py: {url}: {e}')
        with open(path + '.part', 'wb') as f:
            f.write(data)
        os.replace(path + '.part', path)
        got += 1
    print(f'{dest}: {got} crates downloaded, {len(crates) - got} already there')
