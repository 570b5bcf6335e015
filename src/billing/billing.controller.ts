import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { AuthUser } from '../common/auth/auth-user';
import { Authenticated, CurrentUser } from '../common/auth/decorators';
import { ApiErrors, ErrorBody } from '../common/http/openapi';
import { BillingService } from './billing.service';
import { CheckoutView, CreateCheckoutDto } from './dto/checkout.dto';

@ApiTags('Billing')
@Authenticated()
@Controller('billing')
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @Post('checkout')
  @HttpCode(200)
  @ApiOperation({
    summary: "Start a subscription checkout for the caller's team",
    description: "Creates a checkout session with the payment provider (`metadata.team_id` = the caller's team) and returns its URL.",
  })
  @ApiOkResponse({ type: CheckoutView })
  @ApiErrors(422)
  @ApiResponse({ status: 502, description: "The payment provider's API failed", type: ErrorBody })
  @ApiResponse({ status: 503, description: 'Billing is not configured (PAYMENT_SECRET_KEY unset)', type: ErrorBody })
  checkout(@CurrentUser() user: AuthUser, @Body() body: CreateCheckoutDto): Promise<CheckoutView> {
    return this.billing.checkout(user.teamId, body);
  }
}
