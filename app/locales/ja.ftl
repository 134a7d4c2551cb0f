# Anteroom's buyer pages, in Japanese (translated from en.ftl, the source every language follows).
# Ids are grouped by page; a `$n` is a whole number. Japanese has only the plural category
# "other", so most selectors are dropped. Operator pages and the JSON API's messages are not here.

## Numbers of time and money (app/src/words.rs)

duration-seconds = { $n }秒
duration-minutes = { $n }分
duration-hours = { $n }時間
# "1時間5分": $hours is duration-hours.
duration-hours-minutes = { $hours }{ $m }分
# "約3分": $duration is one of the durations above.
wait-about = 約{ $duration }
# "約40秒～2分": two durations.
wait-range = 約{ $low }～{ $high }
# Both ends in seconds: "約20～40秒".
wait-range-seconds = 約{ $low }～{ $high }秒
# Both ends in minutes: "約3～4分".
wait-range-minutes = 約{ $low }～{ $high }分
wait-under-a-minute = 1分未満
countdown-days = { $days }日{ $hours }時間

# Short weekday names, for "12月1日(火)".
weekday = { $n ->
    [1] 月
    [2] 火
    [3] 水
    [4] 木
    [5] 金
    [6] 土
   *[7] 日
}
month = { $n ->
    [1] 1月
    [2] 2月
    [3] 3月
    [4] 4月
    [5] 5月
    [6] 6月
    [7] 7月
    [8] 8月
    [9] 9月
    [10] 10月
    [11] 11月
   *[12] 12月
}
# "12月1日(火) 19:00": $weekday and $month are the names above, $time is 19:00.
day-and-time = { $month }{ $day }日({ $weekday }) { $time }
day-and-time-with-year = { $year }年{ $month }{ $day }日({ $weekday }) { $time }
# "19:00（Berlin 時間）"; $zone is zone-time below, or UTC.
time-in-zone = { $time }（{ $zone }）
# A zone's name by its city (the city's name comes in Latin letters): "Berlin 時間".
zone-time = { $city } 時間

## The outlook

outlook-likely = 順番が来たときに、座席が残っている可能性は高いです。
outlook-uncertain = 順番が来たときに座席が残っているかどうかは、確保中の座席がどれだけ販売に戻るかによります。
outlook-unlikely = 確保中の座席が多く販売に戻らない限り、順番が来たときに座席が残っている可能性は低いです。

## Moving a place to another device

needs-device = この販売では、列の順番は取得した端末にひも付けられます。そのためには、JavaScriptと、鍵を作成できるブラウザ（WebCrypto）が必要です。このブラウザは対応していないため、ここでは列に並べません。JavaScriptを有効にした最新のブラウザで、このページを開いてください。
move-explained = もう一方の端末でこのコードを読み取るか、その端末でこの販売ページを開き、「{ moving-have-code }」にコードを入力してください。順番は現在の位置のまま、一度だけ移動できます。移動すると、このページの順番はなくなります。
claim-refused = このコードは使用済み、期限切れ、または無効なため、順番は移動しませんでした。このページの順番はそのまま保持されています。
claimed = もう一方の端末から、順番がこちらに移動しました（位置はそのままです）。
moving-place-waiting = もう一方の端末の順番は、列の{ $n }番目です。
moving-place-in-line = もう一方の端末は列に並んでいます。
moving-place-admitted = もう一方の端末はすでに入場しています。
moving-place-in-draw = もう一方の端末は抽選に参加しています。
own-place-given-up = この端末は列の{ $n }番目です。あちらの順番をここに移すと、この端末の順番は失われます。
own-ticket-given-up = この端末は抽選に参加しています。あちらの順番をここに移すと、この端末の抽選番号は失われます。
# "19:14（Berlin 時間）まで、1回のみ有効です。"
move-valid-until = { $time }まで、1回のみ有効です。
# $time: "19:04", $zone: "Berlin 時間".
place-moved = { $time }（{ $zone }）に、順番を別の端末へ移動しました。続きはそちらで行ってください。このページの順番はなくなりました。
seats-coming = あなたの番です。まもなく座席表が表示されます。
unreadable = サーバーからの応答を読み取れませんでした。ページを再読み込みして、もう一度お試しください。

## What a form posted without JavaScript comes back to ($wait: "約12秒")

note-released = 座席を解放しました。ほかの方が選べる状態に戻りました。
note-seat-taken = 選択した座席が直前にほかの方に確保されたため、座席を確保できませんでした。座席表に現在の空席を表示しています。もう一度お選びください。
note-not-together = このエリアには、ご希望の数の連席が残っていないため、座席を確保できませんでした。席数を減らすか、別のエリアをお試しください。
note-no-seats = 座席が選択されていません。ご希望の座席にチェックを入れるか、おすすめの席をおまかせでお探しください。
note-too-many-seats = この販売でお一人が確保できる席数を超えているため、座席を確保できませんでした。席数を減らしてください。
note-bad-form = フォームの内容を読み取れなかったため、何も変更していません。ページを再表示しましたので、もう一度お試しください。
note-admission-ended = 座席を選ぶ時間が終了したため、再び列に並びました。
note-not-your-turn = まだ座席を選ぶ順番ではありません。列の順番はそのまま保持されています。順番が来ると、このページから入場できます。
note-claim-conflict = この順番はこのブラウザに移動できません。コードがこのブラウザ自身のものであるか、このブラウザがすでに入場済みであるか、その順番が以前に一度移動済みです。何も変更していません。
note-admission-missing = ブラウザから入場情報が送信されなかったため、座席を確保できませんでした。座席表を再表示しましたので、もう一度お試しください。
note-no-session = ブラウザからセッションCookieが送信されなかったため、ご本人の確認ができず、何も変更していません。このサイトのCookieを許可して、もう一度お試しください。
note-stale-form = 以前に開いたページのフォームだったため、何も変更していません。最新のページを表示しましたので、もう一度お試しください。
note-rate-limited = 直近1分間の操作回数が多すぎるため、何も変更していません。{ $wait }後にもう一度お試しください。
note-busy = ただいまAnteroomが混み合っているため、何も変更していません。{ $wait }後にもう一度お試しください。
note-unavailable = ただいまAnteroomの一部が応答していないため、何も変更していません。{ $wait }後にもう一度お試しください。
note-declined = お支払いが承認されませんでした。座席は引き続き確保されています。もう一度お試しいただけます。
note-pay-not-done = お支払いはまだ完了していません。座席は引き続き確保されており、二重に請求されることはありません。{ $wait }後にもう一度お試しください。
note-hold-ended = お支払いの前に確保時間が終了したため、料金は請求されず、座席は販売に戻りました。よろしければ、もう一度お選びください。
note-already-paid = この座席はお支払い済みのため、解放できません。
note-no-hold = 該当する座席の確保が見つからなかったため、何も変更していません。現在の状況を表示しています。
note-not-open = まだ販売が始まっていないため、何も変更していません。このページで販売開始までのカウントダウンを表示しています。
note-failed = システム側で問題が発生したため、処理を完了できませんでした。もう一度お試しください。

## What went wrong, by the API's error code

error-network = Anteroomに接続できません。通信環境をご確認ください。自動で接続を試み続けます。
error-rate-limited = 直近1分間に、お使いのネットワークからのアクセスが多すぎたため、何も変更していません。しばらく待ってから、もう一度お試しください。
error-unavailable = ただいまAnteroomの一部が応答していないため、何も変更していません。数秒後にもう一度お試しください。
error-seat-unavailable = 選択した座席が直前にほかの方に確保されたため、座席を確保できませんでした。もう一度お選びください。
error-not-admitted = まだ座席を選ぶ順番ではないか、座席を選ぶ時間が終了しました。列の順番はそのまま保持されています。
error-not-in-queue = このページの列の順番はなくなりました。ページを再読み込みして、もう一度並んでください。
error-not-found = 見つかりませんでした。ページを再読み込みして、現在の状況をご確認ください。
error-not-open = まだ販売が始まっていません。このページで販売開始までのカウントダウンを表示しています。
error-conflict = 直前に行われた変更と重なったため、何も変更していません。ページを再読み込みして、もう一度お試しください。
error-unauthorized = ブラウザからセッションCookieが送信されませんでした。このサイトのCookieを許可して、ページを再読み込みしてください。
error-forbidden = この販売では、お客様のアカウントでこの操作は行えません。
error-bad-request = リクエストを読み取れなかったため、何も変更していません。もう一度お試しください。
error-internal = システム側で問題が発生しました。もう一度お試しください。


## The event's page around its stages (app/src/onsale/mod.rs)

page-finding-place = 列の順番を確認しています…
page-sign-in-to-join = ログインして参加する
page-not-for-your-account = この販売は、お客様のアカウントではご利用いただけません
page-sign-in = ログイン
page-all-events = すべてのイベントを見る
# The sign-in's own pages, when it does not go through (each with a way back).
signin-not-set-up-title = ここではログインを利用できません
signin-not-set-up = この販売のサイトにはログインが設定されていないため、ここではログインできません。
signin-not-matched-title = このログインはここで開始されたものではありません
signin-not-matched = このブラウザで開始したログインと一致しませんでした（または10分以上かかりました）。もう一度やり直してください。
signin-unavailable-title = ただいまログインをご利用いただけません
signin-too-many-title = お使いのネットワークからのログインが多すぎます
signin-failed-title = ログインが完了しませんでした
signin-unavailable = ただいまログインサービスが応答していません。しばらくしてからもう一度お試しください。
signin-failed = ログインを完了できなかったため、ログインしていません。もう一度お試しください。
signin-back = 戻る
# The page an instance at capacity answers instead of a waiting room (it comes back by itself).
busy-title = 少々お待ちください
busy-place-kept = ただいまAnteroomが混み合っています。列でのお客様の順番はそのまま保たれます。
page-could-not-open = この販売を開けませんでした
page-try-again = もう一度試す
page-tries-again-in = このページは{ $n }秒後に自動で再試行します。

## What the page's live region says to a screen reader when the stage changes

say-not-open = まだ販売が始まっていません。
# $ticket: the buyer's ticket in the draw, a code.
say-pre-queue = 抽選番号{ $ticket }で事前待機列に参加しています。順番は抽選で決まります。
say-paused = 列に並んでいます。販売は一時停止中です。
# $wait: "約5分", "1分未満".
say-waiting = 列に並んでいます。順番が来るまで{ $wait }です。
say-sold-out = 完売しました。すべての座席が販売済みです。
say-moved = 順番を別の端末に移動しました。そちらで続けてください。
say-choosing = あなたの番です。座席をお選びください。
say-holding = 座席を確保しました。時間内にお支払いください。
say-confirmed = 完了しました。座席の購入が確定しました。

## Around every page, and the list of events (app/src/pages.rs)

# The name of the language switcher, for screen readers.
languages = 言語
not-found = ページが見つかりません
not-found-here = このページは存在しません。
not-found-events = 販売中のイベントを見る
events-title = イベント · Anteroom
events-heading = 販売中のイベント
events-show-details = 待機室の詳細を表示
events-hide-details = 待機室の詳細を閉じる
events-loading = イベントを読み込んでいます…
events-none = 販売中のイベントはまだありません。
events-no-waiting = 販売中：待ち時間なし
events-paused = 待機室は一時停止中
events-open = 待機室オープン中
# $opens: "2026年12月1日(火) 19:00（Berlin 時間）".
events-opens = 販売開始：{ $opens }
events-opens-with-pre-queue = 販売開始：{ $opens }。事前待機列は{ $prequeue }から受付（参加した方は全員、同じ条件で抽選されます）
events-admitted-per-second = 1秒あたりの入場数
events-hold-lasts = 座席の確保時間
events-minutes = { $n }分
events-seats-per-buyer = お一人あたりの席数

## Before the line: the countdowns and the pre-queue (app/src/onsale/opening.rs)

opening-not-yet = まだ販売が始まっていません
# $time: when the sale opens, e.g. "12月1日(火) 19:00（Berlin 時間）".
opening-sale-at = 販売開始は{ $time }です
# $time: when the pre-queue opens; $countdown: "2:05", "1:02:05" or "2日3時間".
opening-prequeue-at = 事前待機列の受付開始は{ $time }、あと{ $countdown }です。
# $prequeue: when the pre-queue opens; $sale: when the sale opens (and the draw is made).
opening-prequeue-explained = { $prequeue }から{ $sale }までに事前待機列に参加した方は、全員が同じ条件です。{ $sale }に抽選を行い、参加者全員をランダムな順番で列に並べます。その後に来た方よりも前の順番になります。早く参加しても有利にはならないので、急ぐ必要はありません。{ $sale }までのお好きなときにご参加ください。
# $countdown: "2:05", "1:02:05" or "2日3時間".
opening-sale-in = 販売開始まであと{ $countdown }です。開始後は先着順となります。
opening-keep-open = このページを開いたままにしてください。時間になると自動で列に参加します。
opening-in-prequeue = 事前待機列に参加しています
# $ticket: the buyer's ticket in the draw, a random code.
opening-your-ticket = あなたの抽選番号：{ $ticket }
# $time: when the sale opens; $countdown: "2:05", "1:02:05" or "2日3時間".
opening-draw-at = 抽選は{ $time }、あと{ $countdown }です。
opening-draw-now = ただいま抽選中です。まもなく順番が決まります。
# $time: when the sale opens (and the draw is made).
opening-draw-explained = { $time }までに参加した方は、全員が同じ条件です。早く参加しても、締め切り直前に参加しても違いはありません。{ $time }に抽選ですべての抽選番号をランダムに並べ、その順番がそのまま列の順番になります。{ $time }より後に来た方よりも前に並びます。
opening-ticket-kept = このページを開いたままにするか、抽選までにお戻りください。抽選番号はどのタブでもそのまま有効です。抽選番号はランダムで、お客様に関する情報は含まれません。抽選後は、各抽選番号が何番目になったかを誰でも確認できます。

## The waiting room (app/src/onsale/waiting.rs)

waiting-in-room = 待機室に入りました
# $place: waiting-position or waiting-position-about, shown in bold.
waiting-place = あなたの順番は{ $place }です
# The buyer's exact place in line: "14,812番目".
waiting-position = { $n }番目
# The buyer's place in line when it is an estimate: "約14,812番目".
waiting-position-about = 約{ $n }番目
waiting-paused = 販売を一時停止しています。順番はそのまま保持され、ほかの方に抜かされることはありません。
# $wait: "約3～4分", shown in bold.
waiting-turn-in = 順番が来るまで{ $wait }です。
waiting-progress = 参加してからの進み具合
# How often the page refreshes itself, in seconds.
waiting-refresh-every = { $n ->
    [60] 1分ごと
   *[other] { $n }秒ごと
}
# $every: waiting-refresh-every ("3秒ごと").
waiting-keep-open = このページを開いたままにしてください。自動で更新され（{ $every }）、順番が来ると入場できます。再読み込みしたり、タブを増やしたりしても、順番は変わりません。
waiting-refreshes = このページは自動で更新されます。順番がまだ先のうちは、更新の間隔が長くなります。
# $ticket: the buyer's ticket in the draw (a code); $place: the place the draw gave it ("14,812").
waiting-drawn-place = あなたの順番は抽選で決まりました。抽選番号{ $ticket }は{ $place }番目になりました。
# $address: the web address where the draw is published (a link); $command: a command line to check it.
waiting-check-draw = ご自身で確認することもできます。抽選の内容は{ $address }で公開しています（事前待機列の受付開始前に確定した秘密値、ビーコン、シード、全抽選番号の順番）。誰でも再計算できるほか、{ $command } を実行して確認することもできます。
# Stands for the sale's web address in a command line the buyer may run.
waiting-this-site = <このサイト>
waiting-recovered = 先ほど、待機室のデータ保存で障害が発生しましたが、すでに復旧しています。順番は到着順のまま保持されています。障害で失われた入場処理をやり直す間、表示される順番が一時的に後ろになることがあります。
waiting-turn-passed = 座席を選ばないまま順番が過ぎたため、再び列に並びました。

## While the browser joins the line (app/src/onsale/arriving.rs)

arriving-getting-place = 順番を取得しています…
arriving-proof-work = この販売では、順番の大量取得を防ぐため、列に並ぶ前にブラウザで数秒間の処理を行っています。ただいまお使いのブラウザで処理中です。このページを開いたままお待ちください。自動で次に進みます。
arriving-proof-needs-script = この処理にはJavaScriptが必要です。このサイトでJavaScriptを有効にして、ページを再読み込みしてください。
arriving-joining = 少々お待ちください。ブラウザが列に参加しています。
arriving-reloads = まもなくこのページが自動で再読み込みされ、順番が表示されます。

## Pages without JavaScript (app/src/onsale/noscript.rs)

noscript-countdown-refresh = このページは自動で更新され、そのたびにカウントダウンが正しい時間に合わせられます。

## The buyer's turn: the seat map (app/src/onsale/seats.rs)

seats-your-turn = お待たせしました。あなたの番です。
seats-title = 座席をお選びください
# $n: how many seats one buyer may hold at this sale.
seats-intro = 最大{ $n }席までお選びいただけます。エリアを開いて座席にチェックを入れるか、並びのおすすめ席をおまかせでお探しください。
# The label of the list of the hall's sections (read by screen readers).
seats-sections = エリア
# The map's legend: what a seat's colour means.
seats-available = 空席
seats-chosen = 選択中
seats-held = 確保中
seats-sold = 販売済み
# The buyer picks how large the seats are drawn.
seats-size = 座席の表示サイズ
seats-size-small = 小
seats-size-medium = 中
seats-size-large = 大
# Marks where the stage is, above the seats.
seats-stage = ステージ
# A section's tile in the overview: its seats still free.
seats-left = { $n ->
    [0] 現在、空席なし
   *[other] 残り{ $n }席
}
# A section's prices, cheapest to dearest: "¥2,500～¥4,500".
seats-price-range = { $low }～{ $high }
# A seat's name: "Stalls 4列 12番" ($section and $row are the venue's own names).
seats-seat = { $section } { $row }列 { $seat }番
# A seat the map no longer shows, by its code.
seats-seat-id = 座席 { $id }
# Between seats' names in a list: "Stalls 4列 12番、Stalls 4列 13番".
seats-list-separator = { "、" }
# A row of seats, as screen readers name it: "Stalls 4列".
seats-row = { $section } { $row }列
# A seat's checkbox, as screen readers read it: "Stalls 4列 12番、¥4,500、空席".
seats-seat-described = { $section } { $row }列 { $seat }番、{ $price }、{ $status ->
    [available] 空席
    [held] 確保中
   *[sold] 販売済み
}
# $n: how many seats are ticked.
seats-hold-button = { $n ->
    [0] チェックした座席を確保する
   *[other] { $n }席を確保する
}
seats-best = または：おすすめの席
seats-best-section = エリア
# How many seats to find together.
seats-best-quantity = 席数
seats-find = 席を探す
# $seats: the seats' names, as a list ("Stalls 4列 12番、Stalls 4列 13番").
seats-taken = { $seats }は、直前にほかの方に確保されました。座席表に現在の空席を表示しています。もう一度お選びください。
seats-not-together = このエリアには、ご希望の数の連席が残っていません。席数を減らすか、別のエリアをお試しください。
# $n: how many seats one buyer may hold at this sale.
seats-limit-reached = 確保できるのは最大{ $n }席までです。別の席を選ぶには、いずれかのチェックを外してください。

## The buyer's turn: seats held (app/src/onsale/held.rs)

held-title = 座席を確保しました
# $time is a countdown, "4:59", shown in bold.
held-for = 確保の残り時間：{ $time }
# $amount: "¥9,000".
held-pay = { $amount }を支払う
held-release = 座席を解放する
held-ended = 確保時間が終了し、座席は販売に戻りました。よろしければ、もう一度お選びください。
held-one-minute = 残り1分です。今すぐお支払いください。時間を過ぎると、座席は販売に戻ります。
# A held seat: "Stalls · 4列 · 12番" ($section and $row are the venue's own names).
held-seat = { $section } · { $row }列 · { $seat }番
held-total = 合計

## The end: sold out, or the order confirmed (app/src/onsale/done.rs)

done-sold-out-title = 完売
done-sold-out = このイベントの座席はすべて販売済みとなったため、待機室を終了しました。
done-title = ご購入が完了しました！
# $order is the order's number, shown in bold.
done-order-number = 注文番号：{ $order }
done-keep = 注文番号を控えておいてください。チケットは追ってお送りします。
done-back = イベント一覧に戻る

## Moving a place to another device (app/src/onsale/moving.rs)

# A page without JavaScript opened with a move code: the form that claims the place.
moving-claim-coming = 別の端末から、列の順番をこの端末に移動しています。
# The button that claims a place moved from another device (the no-JavaScript form and the
# "Have a code from another device?" form).
moving-move-mine-here = 順番をこの端末に移動する
# Read by screen readers: the box that asks whether to take a place moving here over this page's own.
moving-choice-label = この端末に移動してくる順番
moving-choice-move = その順番をこの端末に移動する
moving-choice-keep = この端末の順番を残す
# The button that asks for a one-time code moving this page's place to another device.
moving-continue-elsewhere = 別の端末で続ける
moving-code-heading = 別の端末で入力するコード
# Also quoted inside move-explained.
moving-have-code = 別の端末のコードをお持ちですか？
# The label of the field where the buyer types the code.
moving-code-label = 別の端末に表示されているコード
