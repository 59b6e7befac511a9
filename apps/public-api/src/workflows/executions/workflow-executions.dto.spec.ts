import { BadRequestError } from '@docflow/service-kit';
import { parseCreateExecution } from './workflow-executions.dto';

describe('parseCreateExecution', () => {
  it('takes an activity id as a number or {id}, up to the largest PostgreSQL integer', () => {
    expect(parseCreateExecution({ data: { activity: 2147483647 } })).toEqual({ activityId: 2147483647 });
    expect(parseCreateExecution({ activity: { id: 7 }, inputs: { a: 1 } })).toEqual({ activityId: 7, inputs: { a: 1 } });
  });

  it.each([2147483648, 99999999999999999999, 0, -1, 1.5, '7', null])('refuses activity %p with 400 (a number past int4 reached the query as a 500)', (activity) => {
    let thrown: unknown;
    try {
      parseCreateExecution({ data: { activity } });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(BadRequestError);
    expect((thrown as BadRequestError).details).toEqual({ errors: ['activity is required and must be an integer id from 1 to 2147483647'] });
  });
});
