import { type Job, jobSchema } from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../auth/session.js';
import { jobRefetchInterval } from './format.js';

/**
 * One job, polled every `poll_after_seconds` until it ends; while `live` (the page's event stream
 * is open and refetches it on each of its changes, docs/live-data.md), only every 15 s.
 */
export function useJob(jobId: string | null, live = false) {
  const api = useApi();
  return useQuery({
    queryKey: ['job', jobId],
    queryFn: ({ signal }) => api.request(`/jobs/${jobId}`, jobSchema, { signal }),
    enabled: jobId !== null,
    refetchInterval: (query) => jobRefetchInterval(query.state.data, live),
  });
}

/** Follows the jobs' changes on the live stream: each refetches that job and the lists of jobs. */
export function onJobEvent(
  queryClient: ReturnType<typeof useQueryClient>,
  name: string,
  data: Record<string, unknown>,
) {
  if (name !== 'job' && name !== 'reset') return;
  if (typeof data.job_id === 'string') void queryClient.invalidateQueries({ queryKey: ['job', data.job_id] });
  else void queryClient.invalidateQueries({ queryKey: ['job'] });
  void queryClient.invalidateQueries({ queryKey: ['jobs'] });
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
