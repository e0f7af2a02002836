#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#include <sys/mman.h>
#define N (50L*1000*1000)  /* 400 MB of doubles */
static double now(void){return omp_get_wtime();}
int main(int argc,char**argv){
  int huge = argc>1 ? atoi(argv[1]) : 0;
  double *a = aligned_alloc(1<<21, N*8), *b = aligned_alloc(1<<21, N/3*8), *c = aligned_alloc(1<<21, N/3*8), *d=aligned_alloc(1<<21,N/3*8);
  if (huge) { madvise(a,N*8,25); madvise(a,N*8,MADV_HUGEPAGE);}
  #pragma omp parallel for
  for (long i=0;i<N;i++) a[i]=1e-3*(i%7);
  #pragma omp parallel for
  for (long i=0;i<N/3;i++) {b[i]=1;c[i]=2;d[i]=0;}
  for (int rep=0; rep<3; rep++){
    double best=1e9, t, s=0;
    for(int k=0;k<8;k++){ t=now();
      #pragma omp parallel for
      for(long i=0;i<N/3;i++) d[i]=b[i]+3.0*c[i];
      t=now()-t; if(t<best)best=t;}
    printf("triad %.1f GB/s  ", 24.0*(N/3)/best/1e9);
    for (int S=1; S<=8; S*=2){
      best=1e9;
      for(int k=0;k<8;k++){ t=now(); double tot=0;
        #pragma omp parallel reduction(+:tot)
        { int nt=omp_get_num_threads(), id=omp_get_thread_num();
          long per=N/nt, lo=id*per, hi=lo+per; long seg=(hi-lo)/S;
          double acc[8][8]={{0}};
          for(long i=0;i+8<=seg;i+=8){ for(int q=0;q<S;q++) { const double *p=a+lo+q*seg+i; for(int j=0;j<8;j++) acc[q][j]+=p[j]; } }
          for(int q=0;q<S;q++) for(int j=0;j<8;j++) tot+=acc[q][j]; }
        t=now()-t; s+=tot; if(t<best)best=t;}
      printf("read S=%d %.1f GB/s  ", S, 8.0*N/best/1e9);
    }
    printf("(%g)\n", s);
  }
}
