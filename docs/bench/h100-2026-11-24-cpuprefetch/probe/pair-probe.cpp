// Interleaved probe: per round, triad, read-sum, kernel (streams 1,2,4), triad; ratios to the round's triad.
#include "bsrkernels.h"
#include <omp.h>
#include <sys/mman.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cstdint>
static double med(std::vector<double> v){std::sort(v.begin(),v.end());return v[v.size()/2];}
int main(int argc,char**argv){
  int R=argc>1?atoi(argv[1]):40; int nt=argc>2?atoi(argv[2]):2; int bsarg=argc>3?atoi(argv[3]):5; int scale=argc>4?atoi(argv[4]):1; double tmb=argc>5?atof(argv[5]):400;
  // thesis band: 6400 block rows, 320 blocks each, bs5 (or stencil-ish bs3 with same bytes)
  bsrk_idx nb=6400*scale, per=320, bs=bsarg; if(bs!=5){ per=320*25/(bs*bs); }
  std::vector<bsrk_idx> rp(nb+1), ci((size_t)nb*per);
  for(bsrk_idx i=0;i<nb;i++){ rp[i]=(bsrk_idx)i*per; bsrk_idx s=std::min(std::max<bsrk_idx>(0,i-per/2),nb-per); for(bsrk_idx j=0;j<per;j++) ci[(size_t)i*per+j]=s+j;}
  rp[nb]=(bsrk_idx)nb*per;
  size_t nv=(size_t)nb*per*bs*bs; double*v; posix_memalign((void**)&v,1<<21,nv*8); madvise(v,nv*8,MADV_HUGEPAGE);
#pragma omp parallel for num_threads(nt)
  for(size_t i=0;i<nv;i++) v[i]=1.0/(double)(per*bs);
  std::vector<double> x(nb*bs,1.0), y(nb*bs);
  bsrk_matrix A{nb,nb,bs,rp.data(),ci.data(),v};
  bsrk_partition p{}; bsrk_partition_build(nb,rp.data(),nt*4,&p);
  std::vector<double> ws(p.ntasks*bs);
  size_t n=(size_t)(tmb*1e6/24); double*a=(double*)malloc(n*8),*b=(double*)malloc(n*8),*c=(double*)malloc(n*8);
#pragma omp parallel for num_threads(nt)
  for(size_t i=0;i<n;i++){a[i]=0;b[i]=1;c[i]=2;}
  double mbytes=nv*8.0+ci.size()*4.0+(nb+1)*4.0+2.0*nb*bs*8, tbytes=24.0*n;
  auto triad=[&]{double t=omp_get_wtime();
#pragma omp parallel for num_threads(nt) schedule(static)
    for(size_t i=0;i<n;i++) a[i]=b[i]+3.0*c[i];
    return omp_get_wtime()-t;};
  double sink=0;
  auto rsum=[&]{double t=omp_get_wtime(); double s=0;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+:s)
    for(size_t i=0;i<nv;i++) s+=v[i];
    sink+=s; return omp_get_wtime()-t;};
  auto kern=[&](int S){double t=omp_get_wtime(); bsrk_tasks_multadd(&A,&p,nt,S,BSRK_SHARED_ROWS_CARRY,1.0,x.data(),0.0,nullptr,y.data(),ws.data()); return omp_get_wtime()-t;};
  for(int w=0;w<3;w++){triad();rsum();kern(1);kern(2);kern(4);}
  std::vector<double> rs, r1, r2, r4, tg;
  for(int r=0;r<R;r++){ double t0=triad(); double ts=rsum(), k1=kern(1), k2=kern(2), k4=kern(4); double t1=triad();
    double tt=0.5*(t0+t1), tgb=tbytes/tt/1e9; tg.push_back(tgb);
    rs.push_back(100*(nv*8.0/ts/1e9)/tgb); r1.push_back(100*(mbytes/k1/1e9)/tgb); r2.push_back(100*(mbytes/k2/1e9)/tgb); r4.push_back(100*(mbytes/k4/1e9)/tgb);}
  std::vector<double> a1,a2,a4; for(size_t i=0;i<r1.size();i++){a1.push_back(r1[i]*tg[i]/100);a2.push_back(r2[i]*tg[i]/100);a4.push_back(r4[i]*tg[i]/100);}
  printf("abs GB/s med: k1 %.1f k2 %.1f k4 %.1f | ",med(a1),med(a2),med(a4));
  printf("scale %d bs %d threads %d rounds %d: triad med %.1f GB/s (min %.1f max %.1f) | %%triad medians: readsum %.1f  k1 %.1f  k2 %.1f  k4 %.1f  (y0=%g sink %g)\n",scale,bs,nt,R,med(tg),*std::min_element(tg.begin(),tg.end()),*std::max_element(tg.begin(),tg.end()),med(rs),med(r1),med(r2),med(r4),y[0],sink>0?1.0:0.0);
}
