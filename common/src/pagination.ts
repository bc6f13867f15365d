import { z } from 'zod';

/** `limit` and `skip` as every list route takes them. */
export const listQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  skip: z.coerce.number().int().min(0).default(0),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

/** A search by name (`q` of the list routes): the text a name must contain, any case. */
export const nameSearchSchema = z.string().trim().min(1).max(200);

/** The answer shape of every list route. */
export function listAnswerSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    skip: z.number().int(),
  });
}
