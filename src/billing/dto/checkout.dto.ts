import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, IsUrl, MaxLength, MinLength } from 'class-validator';

const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

export class CreateCheckoutDto {
  @ApiProperty({ example: 'price_123', description: 'A price id listed in PAYMENT_PRICE_PLANS', maxLength: 255 })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  price_id: string;

  @ApiProperty({ example: 'https://app.example.com/billing/success', description: 'Where the provider sends the customer after paying' })
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_OPTIONS)
  success_url: string;

  @ApiProperty({ example: 'https://app.example.com/billing', description: 'Where the provider sends the customer when they cancel' })
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_OPTIONS)
  cancel_url: string;
}

export class CheckoutView {
  @ApiProperty({ example: 'https://checkout.stripe.com/c/pay/cs_test_a1b2c3', description: "The provider's hosted checkout page" })
  url: string;
}
