import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * TypeORM's own `typeorm_metadata` table, where it looks up the expression of
 * generated columns (memory_entries.search) when it compares the entities with
 * the database (`migration:generate`). Same shape as TypeORM creates.
 */
export class TypeormMetadata1763800005001 implements MigrationInterface {
  name = 'TypeormMetadata1763800005001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS typeorm_metadata (
        type character varying NOT NULL,
        database character varying,
        schema character varying,
        "table" character varying,
        name character varying,
        value text
      )`);
    await q.query(
      `INSERT INTO typeorm_metadata (type, database, schema, "table", name, value)
       VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'memory_entries', 'search', $1)`,
      ["to_tsvector('simple'::regconfig, content)"],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE typeorm_metadata`);
  }
}
