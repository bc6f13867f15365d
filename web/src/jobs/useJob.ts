import { type Job, jobSchema } from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../auth/session.js';
import { pollInterval } from './format.js';

/** One job, polled every `poll_after_seconds` until it ends. */
export function useJob(jobId: string | null) {
  const api = useApi();
  return useQuery({
    queryKey: ['job', jobId],
    queryFn: ({ signal }) => api.request(`/jobs/${jobId}`, jobSchema, { signal }),
    enabled: jobId !== null,
    refetchInterval: (query) => pollInterval(query.state.data),
  });
}

/** Cancels a job; the answer (the cancelled job) replaces the cached one. */
export function useCancelJob() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (jobId: string) => api.request(`/jobs/${jobId}/cancel`, jobSchema, { method: 'POST' }),
    onSuccess: (job: Job) => {
      queryClient.setQueryData(['job', job.job_id], job);
      void queryClient.invalidateQueries({ queryKey: ['jobs'] });
    },
  });
}
