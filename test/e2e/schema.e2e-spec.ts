import { createTestApp, TestApp } from '../setup/test-app';

/** The migrations and the entities describe the same schema: `migration:generate` on a clean tree finds nothing. */
describe('Schema', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('matches the entities exactly after all migrations', async () => {
    const sql = await t.dataSource.driver.createSchemaBuilder().log();
    expect(sql.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('has no pending migration', async () => {
    expect(await t.dataSource.showMigrations()).toBe(false);
  });
});
