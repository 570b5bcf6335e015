import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { defer, lastValueFrom, map, Observable } from 'rxjs';
import type { WebhookAck } from './dto/webhook.dto';
import { HandledEvent, ProcessedEventsService } from './processed-events.service';
import type { WebhookRequest } from './webhook-request';

/**
 * Runs the webhook handler at most once per event id (see
 * ProcessedEventsService.runOnce for how). The transaction is opened here,
 * its EntityManager is put on the request for the handler (`@WebhookTransaction()`),
 * and the handler's result becomes the `{status}` answer. A duplicate never
 * reaches the handler.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly processedEvents: ProcessedEventsService) {}

  intercept(context: ExecutionContext, next: CallHandler<HandledEvent>): Observable<WebhookAck> {
    const req = context.switchToHttp().getRequest<WebhookRequest>();
    const event = req.paymentEvent;
    if (!event) throw new Error('IdempotencyInterceptor needs PaymentSignatureGuard on the route');
    return defer(() =>
      this.processedEvents.runOnce(event, (manager) => {
        req.webhookManager = manager;
        return lastValueFrom(next.handle());
      }),
    ).pipe(map((status) => ({ status })));
  }
}
