// Does a triad just before a product slow the product (dirty lines of the triad written back during it)?
// Per round: [triad, kernel(timed A)], [kernel, kernel(timed B)], [triad, kernel(untimed), kernel(timed C)].
#include "bsrkernels.h"
#include <omp.h>
#include <sys/mman.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
static double med(std::vector<double> v){std::sort(v.begin(),v.end());return v[v.size()/2];}
int main(int argc,char**argv){
  int R=argc>1?atoi(argv[1]):30, nt=argc>2?atoi(argv[2]):2, bs=argc>3?atoi(argv[3]):3; double mb=argc>4?atof(argv[4]):218;
  bsrk_idx per=27; bsrk_idx nb=(bsrk_idx)(mb*1e6/(per*(bs*bs*8.0+4)));
  std::vector<bsrk_idx> rp(nb+1), ci((size_t)nb*per);
  for(bsrk_idx i=0;i<nb;i++){ rp[i]=(bsrk_idx)i*per; bsrk_idx s=std::min(std::max<bsrk_idx>(0,i-per/2),nb-per); for(bsrk_idx j=0;j<per;j++) ci[(size_t)i*per+j]=s+j;}
  rp[nb]=(bsrk_idx)nb*per;
  size_t nv=(size_t)nb*per*bs*bs; double*v; posix_memalign((void**)&v,1<<21,nv*8); madvise(v,nv*8,MADV_HUGEPAGE);
#pragma omp parallel for num_threads(nt)
  for(size_t i=0;i<nv;i++) v[i]=1.0/(double)(per*bs);
  std::vector<double> x(nb*bs,1.0), y(nb*bs);
  bsrk_matrix A{nb,nb,(bsrk_idx)bs,rp.data(),ci.data(),v};
  bsrk_partition p{}; bsrk_partition_build(nb,rp.data(),nt*8,&p);
  std::vector<double> ws(p.ntasks*bs);
  size_t n=400000000/24; double*a=(double*)malloc(n*8),*b=(double*)malloc(n*8),*c=(double*)malloc(n*8);
#pragma omp parallel for num_threads(nt)
  for(size_t i=0;i<n;i++){a[i]=0;b[i]=1;c[i]=2;}
  auto triad=[&]{double t=omp_get_wtime();
#pragma omp parallel for num_threads(nt) schedule(static)
    for(size_t i=0;i<n;i++) a[i]=b[i]+3.0*c[i];
    return omp_get_wtime()-t;};
  auto kern=[&]{double t=omp_get_wtime(); bsrk_tasks_multadd(&A,&p,nt,2,8192,BSRK_SHARED_ROWS_CARRY,1.0,x.data(),0.0,nullptr,y.data(),ws.data()); return omp_get_wtime()-t;};
  for(int w=0;w<3;w++){triad();kern();}
  std::vector<double> ta,tb,tc,tt;
  for(int r=0;r<R;r++){ tt.push_back(triad()); ta.push_back(kern()); kern(); tb.push_back(kern()); triad(); kern(); tc.push_back(kern()); }
  double mbytes=nv*8.0+ci.size()*4.0;
  printf("%.0f MB bs %d threads %d: triad %.1f GB/s | product after a triad %.1f GB/s, after a product %.1f, after triad+product %.1f\n", nv*8/1e6, bs, nt, 24.0*n/med(tt)/1e9, mbytes/med(ta)/1e9, mbytes/med(tb)/1e9, mbytes/med(tc)/1e9);
}
