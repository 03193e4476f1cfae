/** 简体中文 words for every error code (see messages.ts for the English table and the rules). */
import type { ErrorMessages } from './message-types';

function seatList(seats: unknown): string {
  if (!Array.isArray(seats) || seats.length === 0) return '其中一个座位';
  return `座位 ${seats.join('、')}`;
}

const TRY_AGAIN = '请稍后再试。';
const JOIN_AGAIN = '您可以重新排队。';
const RELOAD = '请刷新页面后再试。';

export const ERROR_MESSAGES_ZH: ErrorMessages = {
  MALFORMED_JSON: `页面发送的内容无法被服务读取。${RELOAD}`,
  IDEMPOTENCY_KEY_REQUIRED: `支付请求不完整。${RELOAD}`,
  IDEMPOTENCY_KEY_INVALID: `支付请求不完整。${RELOAD}`,
  HTTP_ERROR: `服务无法处理该请求。${RELOAD}`,
  UNAUTHORIZED: '请重新登录：登录未被接受。',
  MISSING_TOKEN: '您的购票时间已结束。请重新排队以获得新的购票机会。',
  INVALID_TOKEN: '您的购票时间已结束。请重新排队以获得新的购票机会。',
  TOKEN_EXPIRED: '您的购票时间已结束。请重新排队以获得新的购票机会。',
  INVALID_SIGNATURE: '一条支付消息无法验证，已被忽略。我们会向支付服务商再次核实您的支付。',
  SERVICE_TOKEN_REQUIRED: '票务服务只接受通过本网站的请求。请通过售票页面购票。',
  WRONG_SHOWTIME: '这是另一个场次的请求。请从场次列表打开本场次。',
  NOT_YOUR_HOLD: '此页面属于另一个购票会话。请刷新页面以您自己的身份继续。',
  NOT_YOUR_BOOKING: '此订单由其他顾客下单，无法在此显示或修改。您自己的订单在“我的订单”中。',
  NOT_YOUR_TOKEN: '此页面属于另一个购票会话。请刷新页面以您自己的身份继续。',
  CONSOLE_HEADER_REQUIRED: '控制台拒绝了该更改，因为它不是来自控制台页面。请刷新控制台后再试。',
  ADDRESS_PLACE_LIMIT: '您的网络在本队列中占用的位置过多。如果您与很多人共用网络，请换一个网络再试。',
  ROUTE_NOT_FOUND: '本网站目前无法加入排队。',
  SHOWTIME_NOT_FOUND: '找不到该场次，它可能已被删除：请返回场次列表。',
  HOLD_NOT_FOUND: '找不到您锁定的座位了。请重新选座。',
  BOOKING_NOT_FOUND: '找不到该订单。请核对订单号，或从“我的订单”中打开。',
  ROOM_NOT_FOUND: '本场次还没有排队队列。请稍后再试。',
  VENUE_NOT_FOUND: '该影院已不存在。请刷新控制台并重新选择影院。',
  QUEUE_ID_NOT_FOUND: '没有使用该排队编号的位置。请检查是否输错（编号为 8 位，如 K7QM-2XPD）。',
  NO_SEATS_TOGETHER: (r) => {
    const most = Number(r.json?.error?.maxTogether ?? 0);
    return most > 0
      ? `已没有这么多相连的座位：最多只有 ${most} 个座位相邻。请减少数量，或选择不相连的座位。`
      : '已没有这么多相连的座位。请选择不相连的座位，或在座位图上自己挑选。';
  },
  SEATS_UNAVAILABLE: (r) => `抱歉，${seatList(r.json?.error?.seats)}刚被别人选走。座位图已刷新：请重新选择。`,
  SALE_NOT_OPEN: '本场次目前未开放售票。',
  SHOWTIME_STARTED: '本场次已经开场，不再售票。',
  HOLD_CONFIRMED: '这些座位已经支付过了。',
  HOLD_CANCELLED: '此锁定已取消。请重新选座。',
  BOOKING_NOT_REFUNDABLE: '此订单已无法退款。',
  BOOKING_NOT_CANCELLABLE: '此订单已无法取消（可能已取消，或离开场太近）。',
  IDEMPOTENCY_KEY_IN_FLIGHT: '您的支付正在创建中。请稍候，不要重复支付。',
  INVALID_SALE_TRANSITION: '销售无法从当前状态直接变为该状态。请选择其他更改。',
  ALREADY_OPENED: '队列已经开放，开放时间不能再更改。',
  DUPLICATE: '已存在同名项目。请换一个名称或打开已有的项目。',
  PLACES_UNAVAILABLE: (r) => {
    const left = r.json?.error?.available;
    return typeof left === 'number' && left > 0
      ? `抱歉，该区域只剩 ${left} 个名额。请减少数量。`
      : '抱歉，该区域刚刚售罄。座位图已刷新。';
  },
  FARE_CLASS_IN_USE: '此票种已有售出，不能删除或这样修改。',
  FARE_CLASS_FULL: '此票种已售罄。',
  ROOM_CLOSED: '本场次已停止售票。',
  SOLD_OUT: '本场次已售罄。',
  NOT_OFFERED: '还没轮到您。请保持本页面打开，轮到您时我们会通知您。',
  DRAW_STALE: `您操作时队列正在建立。${TRY_AGAIN}`,
  NOT_OPENING: '队列现在没有在开放，无需抽签。',
  COST_EXCEEDS_CAPACITY: '请求超过了本队列一次能提供的数量。请减少数量。',
  NOT_ADMITTED: '还没轮到您购票。请在队列中等待。',
  TURN_EXPIRED: '由于本页面一段时间没有响应，您的排队位置已失效。您可以重新排队（排在队尾）。',
  TURN_ENDED: `您的购票时间已结束（购票已完成或时间已用完）。${JOIN_AGAIN}`,
  HOLD_EXPIRED: '这些座位的支付时间已过，座位已释放。您的购票时间仍在继续：请重新选座。',
  PAYLOAD_TOO_LARGE: '请求过大。请少选几个座位后再试。',
  UNSUPPORTED_MEDIA_TYPE: `页面发送的内容无法被服务读取。${RELOAD}`,
  VALIDATION_FAILED: (r) =>
    `输入的部分内容无效${r.json?.error?.message ? `：${r.json.error.message}` : ''}。请检查后再试。`,
  DUPLICATE_SEATS: '同一个座位被选了两次。请检查您的座位。',
  UNKNOWN_SEATS: '部分座位在本影厅中不存在。座位图已刷新：请重新选择。',
  SEAT_LIMIT_EXCEEDED: '您已达到本场次每人可购买的座位上限。',
  COUPLE_SEATS_SPLIT: '情侣座成对出售：请选择一对中的两个座位，或都不选。',
  IDEMPOTENCY_KEY_REUSED: `该支付请求与之前发起的不一致。${RELOAD}`,
  CONSTRAINT_VIOLATED: '该更改会违反影厅或销售的规则，因此未做任何更改。',
  INVALID_VALUE: (r) => `其中一个值不被允许${r.json?.error?.message ? `：${r.json.error.message}` : ''}。`,
  REFERENCE_NOT_FOUND: '该更改引用的对象（影厅或场次）不存在。请检查后再试。',
  RETURN_URL_NOT_ALLOWED: '支付页面无法将您送回该地址。',
  AMOUNT_REQUIRED: '需要填写价格。',
  UNKNOWN_FARE_CLASS: '本场次没有该票种。请刷新页面查看当前票种。',
  INVALID_FARE_CLASS: '该票种设置不正确。请检查名称、价格和名额。',
  CAPACITY_REQUIRED: '站票和不对号入座区域需要填写名额数量。',
  SEATED_CLASS_CAPACITY: '对号入座的票种名额来自座位，不能单独设置名额数量。',
  POW_REQUIRED: '您的浏览器需要片刻来证明您不是机器人。请保持页面打开。',
  POW_INVALID: `您的浏览器验证未通过。${TRY_AGAIN}`,
  POW_EXPIRED: `您的浏览器验证用时过长。${TRY_AGAIN}`,
  POW_REUSED: `您的浏览器验证已被使用过。${TRY_AGAIN}`,
  RATE_LIMITED: '短时间内请求过多。请等待几秒后再试。',
  LOCKED_OUT: '错误尝试次数过多。请等待几分钟后再试。',
  CLIENT_CLOSED_REQUEST: `请求在得到答复前被取消了。${TRY_AGAIN}`,
  INTERNAL: `我们这边出了点问题。${TRY_AGAIN}`,
  PAYMENT_GATEWAY_REFUSED: '支付服务商拒绝发起本次支付。您的座位仍被锁定：请再试一次，或换一种支付方式。',
  BUSY: '服务现在繁忙。请几秒后再试。',
  DATABASE_UNAVAILABLE: '票务服务暂时不可用。请几秒后再试。',
  STORE_UNAVAILABLE: '票务服务暂时不可用。请几秒后再试。',
  QUEUE_UNAVAILABLE: '排队服务暂时不可用；入场已暂停，您的位置会保留。请稍后再试。',
  CORE_UNAVAILABLE: '票务服务暂时不可用。您的购票机会和位置会保留；请稍后再试。',
  PAYMENT_GATEWAY_UNAVAILABLE: '支付服务商没有响应。您的座位仍被锁定：请稍后再试。',
  PAYMENT_UNKNOWN_YET: '我们仍在等待支付服务商的结果。请不要重复支付；本页面会自动更新。',
};
