import re,sys,collections,statistics as st
d=collections.defaultdict(list); cur=None
for l in open(sys.argv[1]):
    m=re.match(r'== run \d+ streams (\d+)',l)
    if m: cur=m.group(1); continue
    m=re.search(r'TARGET (\w+) +: ([\d.]+)%.*median GB/s ([\d.]+) MatMult, ([\d.]+) triad',l)
    if m:
        t=float(m.group(4)); g='<55' if t<55 else '55-68' if t<68 else '68-76' if t<76 else '>=76'
        d[(m.group(1),g,cur)].append((float(m.group(2)),float(m.group(3)),t))
for k in sorted(d):
    v=d[k]; print(k,len(v),'pct med %.1f min %.1f max %.1f'%(st.median([x[0] for x in v]),min(x[0] for x in v),max(x[0] for x in v)),'GB/s med %.1f'%st.median([x[1] for x in v]),'triad med %.1f'%st.median([x[2] for x in v]))
