// A typed, in-process publish/subscribe channel for domain events. Modules publish what happened
// in their own terms and subscribe to others' events, so no module reaches into another to tell
// it something. Handlers run one after another, awaited by the publisher: an event's work is
// done (or has failed, failing the publisher) when publish resolves.

type Handler<Payload> = (payload: Payload) => Promise<void>

export class EventBus<EventMap extends object> {
  private readonly handlers = new Map<keyof EventMap, Handler<never>[]>()

  subscribe<Type extends keyof EventMap>(type: Type, handler: Handler<EventMap[Type]>): void {
    const list = this.handlers.get(type) ?? []
    list.push(handler as Handler<never>)
    this.handlers.set(type, list)
  }

  async publish<Type extends keyof EventMap>(type: Type, payload: EventMap[Type]): Promise<void> {
    for (const handler of this.handlers.get(type) ?? []) await (handler as Handler<EventMap[Type]>)(payload)
  }
}
