import re,sys,statistics as st,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.search(r'(CH\d+|T\d+) triad +(\d+)- *(\d+) (S\d+ PF *\d+): +(\d+) rounds, triad med ([\d.]+) GB/s, kernel/triad med ([\d.]+) %, read/triad med ([\d.]+) %',l)
    if not m: continue
    key=(m.group(1),m.group(2),m.group(4).replace(' ',''))
    d[key]+= [(float(m.group(7)),float(m.group(8)),float(m.group(6)))]*int(m.group(5))
for k in sorted(d):
    v=d[k]
    print(k, len(v), 'triad %.1f'%st.median([x[2] for x in v]), 'kernel %.1f'%st.median([x[0] for x in v]), 'read %.1f'%st.median([x[1] for x in v]))
