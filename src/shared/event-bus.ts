// A typed, in-process publish/subscribe channel for what happened after a change committed.
// Handlers run one after another, awaited by the publisher, but a handler's failure is reported
// (`onError`), never thrown into the publisher: its change is done, and a reaction cannot undo
// it. Anything that must refuse or write with the change is a direct call, not an event.

type Handler<Payload> = (payload: Payload) => Promise<void>

export class EventBus<EventMap extends object> {
  private readonly handlers = new Map<keyof EventMap, Handler<never>[]>()

  constructor(private readonly onError: (error: unknown, type: keyof EventMap) => void) {}

  subscribe<Type extends keyof EventMap>(type: Type, handler: Handler<EventMap[Type]>): void {
    const list = this.handlers.get(type) ?? []
    list.push(handler as Handler<never>)
    this.handlers.set(type, list)
  }

  async publish<Type extends keyof EventMap>(type: Type, payload: EventMap[Type]): Promise<void> {
    for (const handler of this.handlers.get(type) ?? []) {
      try {
        await (handler as Handler<EventMap[Type]>)(payload)
      } catch (error) {
        this.onError(error, type)
      }
    }
  }
}
