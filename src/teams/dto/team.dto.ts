import { ApiProperty } from '@nestjs/swagger';
import type { PlanLimits } from '../../config/config';
import type { Team } from '../entities/team.entity';

export class TeamUsage {
  @ApiProperty({ example: 52428800, description: 'Bytes of stored files' }) storage_bytes: number;
  @ApiProperty({ example: 12, description: 'Files uploaded since the last reset' }) files_uploaded: number;
  @ApiProperty({ example: 3, description: 'MCP connection tests since the last reset' }) mcp_connection_tests: number;
}

export class TeamLimits {
  @ApiProperty({ example: 1073741824, nullable: true, type: Number, description: '`null`: unlimited' }) storage_bytes: number | null;
  @ApiProperty({ example: null, nullable: true, type: Number, description: '`null`: unlimited' }) files_uploaded: number | null;
  @ApiProperty({ example: null, nullable: true, type: Number, description: '`null`: unlimited' }) mcp_connection_tests: number | null;
}

/** CONTRACT §3: the caller's team, its billing state, usage and plan limits. */
export class TeamView {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'Acme' }) name: string;
  @ApiProperty({ example: 'Free', description: 'Plan name (`Free` by default; others from PAYMENT_PRICE_PLANS)' }) plan: string;
  @ApiProperty({
    example: null,
    nullable: true,
    type: String,
    description: "The provider's status: active, past_due, canceled, trialing, unpaid, incomplete, ...",
  })
  subscription_status: string | null;
  @ApiProperty({ example: null, nullable: true, type: String, format: 'date-time' }) current_period_start: string | null;
  @ApiProperty({ example: null, nullable: true, type: String, format: 'date-time' }) current_period_end: string | null;
  @ApiProperty({ example: false }) cancel_at_period_end: boolean;
  @ApiProperty({ example: null, nullable: true, type: String }) payment_customer_id: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) payment_subscription_id: string | null;
  @ApiProperty({ type: TeamUsage }) usage: TeamUsage;
  @ApiProperty({ type: TeamLimits }) limits: TeamLimits;

  static of(team: Team, limits: PlanLimits): TeamView {
    return {
      id: team.id,
      name: team.name,
      plan: team.plan,
      subscription_status: team.subscriptionStatus,
      current_period_start: team.currentPeriodStart?.toISOString() ?? null,
      current_period_end: team.currentPeriodEnd?.toISOString() ?? null,
      cancel_at_period_end: team.cancelAtPeriodEnd,
      payment_customer_id: team.paymentCustomerId,
      payment_subscription_id: team.paymentSubscriptionId,
      usage: {
        storage_bytes: Number(team.usageStorageBytes),
        files_uploaded: Number(team.usageFilesUploaded),
        mcp_connection_tests: Number(team.usageMcpConnectionTests),
      },
      limits: {
        storage_bytes: limits.storage_bytes,
        files_uploaded: limits.files_uploaded,
        mcp_connection_tests: limits.mcp_connection_tests,
      },
    };
  }
}
