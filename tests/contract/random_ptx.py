#!/usr/bin/env python3
"""random_ptx.py — random straight-line PTX programs for stress-testing the contraction rule.

    tests/contract/random_ptx.py DIR            # writes DIR/plain_N.ptx (300), mix_N.ptx (200), ftz_N.ptx (150)
    tests/contract/check.sh --arch sm_80 DIR/*.ptx

Each program loads ten f32 inputs, multiplies pairs of them (2-5 products), then does 3-10 random steps: an
add/sub of earlier values, a neg or mov of one, a store of a product, or a product of a product; every value
nobody reads is stored. `mix` programs mix .ftz and plain instructions and add rounding modifiers now and
then; `ftz` programs use .ftz throughout. The seeds are fixed: the files are the same on every run
(docs/CONTRACTION.md reports what check.sh says of them).
"""
import os
import random
import sys


def gen(rng, nin=10, nmul=4, nops=7, pftzmix=0.0, ftz=False, prn=0.0):
    ins = [f'%i{i}' for i in range(nin)]
    body, pairs, muls = [], set(), []
    F = '.ftz' if ftz else ''
    for k in range(nmul):
        while True:
            a, b = sorted(rng.sample(range(nin), 2))
            if (a, b) not in pairs:
                pairs.add((a, b))
                break
        body.append(('mul' + F, f'%m{k}', f'%i{a}', f'%i{b}'))
        muls.append(f'%m{k}')
    vals, stores = list(muls), []
    for k in range(nops):
        r = rng.random()
        if r < 0.12:
            body.append(('neg' + F, f'%n{k}', rng.choice(vals)))
            vals.append(f'%n{k}')
        elif r < 0.18:
            body.append(('mov', f'%n{k}', rng.choice(vals)))
            vals.append(f'%n{k}')
        elif r < 0.26:
            stores.append(rng.choice(muls))
        elif r < 0.30:
            body.append(('mul' + F, f'%n{k}', rng.choice(muls), rng.choice(ins)))
            vals.append(f'%n{k}')
        else:
            x, y = rng.choice(vals), rng.choice(vals + ins[:3])
            if rng.random() < 0.5:
                x, y = y, x
            op, f = rng.choice(['add', 'add', 'sub']), F
            if rng.random() < pftzmix:
                f = '' if ftz else '.ftz'
            if rng.random() < prn:
                f = '.rn' + f
            body.append((op + f, f'%s{k}', x, y))
            vals.append(f'%s{k}')
    return ins, body, stores


def to_ptx(ins, body, stores):
    L = ['.version 8.0', '.target sm_80', '.address_size 64', '', '.visible .entry k(.param .u64 p)', '{',
         '  .reg .f32 %i<32>, %m<32>, %s<32>, %n<32>;', '  .reg .b64 %rd<4>;',
         '  ld.param.u64 %rd1, [p];', '  cvta.to.global.u64 %rd2, %rd1;']
    L += [f'  ld.global.f32 {v}, [%rd2+{4 * i}];' for i, v in enumerate(ins)]
    used = set()
    for op, d, *src in body:
        L.append(f'  {op}.f32 {d}, {", ".join(src)};')
        used.update(src)
    off = 256
    for b in body:
        if b[0].startswith(('add', 'sub', 'neg', 'mov')) and b[1] not in used:
            L.append(f'  st.global.f32 [%rd2+{off}], {b[1]};')
            off += 4
    for s in stores:
        L.append(f'  st.global.f32 [%rd2+{off}], {s};')
        off += 4
    return '\n'.join(L + ['  ret;', '}']) + '\n'


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for mode, n in (('plain', 300), ('mix', 200), ('ftz', 150)):
        for seed in range(n):
            rng = random.Random(seed * 7919 + len(mode))
            kw = dict(nmul=rng.randint(2, 5), nops=rng.randint(3, 10))
            if mode == 'ftz':
                kw.update(ftz=True)
            if mode == 'mix':
                kw.update(ftz=rng.random() < 0.5, pftzmix=0.2, prn=0.1)
            with open(os.path.join(out, f'{mode}_{seed}.ptx'), 'w') as f:
                f.write(to_ptx(*gen(rng, **kw)))


if __name__ == '__main__':
    main()
