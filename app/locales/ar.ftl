# Anteroom's buyer pages, in Arabic (Modern Standard Arabic).
# Ids are grouped by page; a `$n` is a whole number, written and made plural the
# language's way. Operator pages and the JSON API's messages are not here: they stay English.
# Arabic plural categories: zero (0), one (1), two (2), few (3-10), many (11-99), other (100, 101, 102…).

## Numbers of time and money (app/src/words.rs)

# Durations are written in the genitive/accusative form ("دقيقتين"): every sentence puts them after a preposition.
duration-seconds = { $n ->
    [zero] { $n } ثانية
    [one] ثانية واحدة
    [two] ثانيتين
    [few] { $n } ثوانٍ
    [many] { $n } ثانية
   *[other] { $n } ثانية
}
duration-minutes = { $n ->
    [zero] { $n } دقيقة
    [one] دقيقة واحدة
    [two] دقيقتين
    [few] { $n } دقائق
    [many] { $n } دقيقة
   *[other] { $n } دقيقة
}
duration-hours = { $n ->
    [zero] { $n } ساعة
    [one] ساعة واحدة
    [two] ساعتين
    [few] { $n } ساعات
    [many] { $n } ساعة
   *[other] { $n } ساعة
}
# "1 hour 5 minutes": $hours is duration-hours.
duration-hours-minutes = { $hours } و{ $m ->
    [zero] { $m } دقيقة
    [one] دقيقة واحدة
    [two] دقيقتين
    [few] { $m } دقائق
    [many] { $m } دقيقة
   *[other] { $m } دقيقة
}
# "about 3 minutes": $duration is one of the durations above.
wait-about = { $duration } تقريبًا
# "about 40 seconds to 2 minutes": two durations.
wait-range = { $low } إلى { $high } تقريبًا
# Both ends in seconds (more than one): "about 20 to 40 seconds". The noun agrees with $high.
wait-range-seconds = { $low } إلى { $high ->
    [zero] { $high } ثانية
    [one] { $high } ثانية
    [two] { $high } ثانية
    [few] { $high } ثوانٍ
    [many] { $high } ثانية
   *[other] { $high } ثانية
} تقريبًا
# Both ends in minutes (more than one): "about 3 to 4 minutes". The noun agrees with $high.
wait-range-minutes = { $low } إلى { $high ->
    [zero] { $high } دقيقة
    [one] { $high } دقيقة
    [two] { $high } دقيقة
    [few] { $high } دقائق
    [many] { $high } دقيقة
   *[other] { $high } دقيقة
} تقريبًا
wait-under-a-minute = أقل من دقيقة
countdown-days = { $days ->
    [zero] { $days } يوم
    [one] يوم واحد
    [two] يومين
    [few] { $days } أيام
    [many] { $days } يومًا
   *[other] { $days } يوم
} و{ $hours } س

weekday = { $n ->
    [1] الاثنين
    [2] الثلاثاء
    [3] الأربعاء
    [4] الخميس
    [5] الجمعة
    [6] السبت
   *[7] الأحد
}
month = { $n ->
    [1] يناير
    [2] فبراير
    [3] مارس
    [4] أبريل
    [5] مايو
    [6] يونيو
    [7] يوليو
    [8] أغسطس
    [9] سبتمبر
    [10] أكتوبر
    [11] نوفمبر
   *[12] ديسمبر
}
# "الثلاثاء، 1 ديسمبر، 19:00": $weekday and $month are the names above, $time is 19:00.
day-and-time = { $weekday }، { $day } { $month }، { $time }
day-and-time-with-year = { $weekday }، { $day } { $month } { $year }، { $time }
# "19:00 بتوقيت Berlin"; $zone is zone-time below, or UTC.
time-in-zone = { $time } { $zone }
# A zone's name by its city: "Berlin time".
zone-time = بتوقيت { $city }

## The outlook

outlook-likely = من المرجّح أن تبقى مقاعد متاحة عندما يحين دورك.
outlook-uncertain = قد تبقى مقاعد متاحة عندما يحين دورك وقد لا تبقى: يتوقف ذلك على عودة المقاعد المحجوزة إلى البيع.
outlook-unlikely = من غير المرجّح أن تبقى مقاعد متاحة عندما يحين دورك، إلا إذا عاد كثير من المقاعد المحجوزة إلى البيع.

## Moving a place to another device

needs-device = يربط هذا البيع كل مكان في الطابور بالجهاز الذي حصل عليه، وهذا يتطلب JavaScript ومتصفحًا قادرًا على إنشاء مفتاح (WebCrypto). هذا المتصفح لا يستطيع ذلك، لذا لا يمكنه الحصول على مكان هنا. يُرجى فتح هذه الصفحة في متصفح محدَّث مع تفعيل JavaScript.
move-explained = على جهازك الآخر، امسح هذا الرمز، أو افتح صفحة هذا البيع هناك واكتب الرمز تحت «{ moving-have-code }». سينتقل مكانك إلى هناك بترتيبه نفسه، لمرة واحدة فقط، ولن يبقى لهذه الصفحة مكان بعد ذلك.
claim-refused = هذا الرمز مستخدَم أو منتهي الصلاحية أو غير معروف، لذا لم ينتقل أي مكان إلى هنا. تحتفظ هذه الصفحة بمكانها الخاص في الطابور.
claimed = انتقل مكانك إلى هنا من جهازك الآخر، بترتيبه نفسه.
moving-place-waiting = مكان جهازك الآخر هو رقم { $n } في الطابور.
moving-place-in-line = مكان جهازك الآخر في الطابور.
moving-place-admitted = حان دور جهازك الآخر وسُمح له بالدخول.
moving-place-in-draw = جهازك الآخر مشارك في القرعة.
own-place-given-up = هذا الجهاز رقم { $n } في الطابور؛ نقل ذلك المكان إلى هنا يعني التخلي عن مكان هذا الجهاز.
own-ticket-given-up = هذا الجهاز مشارك في القرعة؛ نقل ذلك المكان إلى هنا يعني التخلي عن تذكرة القرعة الخاصة به.
# "Valid until 19:14 Berlin time, once."
move-valid-until = صالح حتى { $time }، لمرة واحدة.
# $time: "19:04", $zone: "Berlin time".
place-moved = انتقل مكانك إلى جهاز آخر عند الساعة { $time } ({ $zone }). تابع من هناك؛ لم يعد لهذه الصفحة مكان في الطابور.
seats-coming = حان دورك: خريطة المقاعد في طريقها إليك.
unreadable = تعذّر على هذه الصفحة قراءة ما أرسله خادمنا. أعد تحميلها للمحاولة مرة أخرى.

## What a form posted without JavaScript comes back to ($wait: "about 12 seconds")

note-released = تم إلغاء الحجز. أصبحت المقاعد متاحة للآخرين مجددًا.
note-seat-taken = حجز شخص آخر للتو مقعدًا اخترته، لذا لم يُحجز أي شيء. تعرض الخريطة الآن المقاعد المتبقية؛ يُرجى الاختيار مجددًا.
note-not-together = لم يعد في هذا القسم هذا العدد من المقاعد المتجاورة، لذا لم يُحجز أي شيء. جرّب عددًا أقل من المقاعد أو قسمًا آخر.
note-no-seats = لم تختر أي مقعد. حدّد المقاعد التي تريدها، أو دعنا نجد لك أفضلها.
note-too-many-seats = هذا العدد يتجاوز الحد الأقصى للمقاعد المسموح به لكل مشترٍ في هذا البيع، لذا لم يُحجز أي شيء. يُرجى اختيار عدد أقل.
note-bad-form = تعذّرت علينا قراءة هذا النموذج، لذا لم يتغير أي شيء. هذه هي الصفحة مجددًا؛ يُرجى المحاولة مرة أخرى.
note-admission-ended = انتهى الوقت المخصص لك لاختيار المقاعد، لذا عدت إلى الطابور.
note-not-your-turn = لم يحن دورك لاختيار المقاعد بعد. ما زلت تحتفظ بمكانك في الطابور، وستُدخلك هذه الصفحة عندما يحين دورك.
note-claim-conflict = لا يمكن نقل هذا المكان إلى هذا المتصفح: إما أن الرمز صادر عن هذا المتصفح نفسه، أو أن هذا المتصفح قد دخل بالفعل، أو أن مكانه نُقل من قبل. لم يتغير أي شيء.
note-admission-missing = أرسل متصفحك هذا النموذج دون إذن الدخول الخاص بك، لذا لم يُحجز أي شيء. هذه خريطة المقاعد مجددًا؛ يُرجى المحاولة مرة أخرى.
note-no-session = أرسل متصفحك هذا النموذج دون ملف تعريف الارتباط (cookie) الخاص بجلستنا، فلم نتمكن من التحقق من هويتك ولم نغيّر أي شيء. يُرجى السماح بملفات تعريف الارتباط لهذا الموقع والمحاولة مرة أخرى.
note-stale-form = هذا النموذج من زيارة سابقة لهذه الصفحة، لذا لم يتغير أي شيء. هذه هي الصفحة مجددًا بأحدث المعلومات؛ يُرجى المحاولة مرة أخرى.
note-rate-limited = حاولت ذلك مرات كثيرة خلال الدقيقة الأخيرة، لذا لم يتغير أي شيء. حاول مجددًا بعد { $wait }.
note-busy = وصل Anteroom إلى أقصى طاقته في هذه اللحظة، لذا لم يتغير أي شيء. حاول مجددًا بعد { $wait }.
note-unavailable = جزء من Anteroom لا يستجيب حاليًا، لذا لم يتغير أي شيء. حاول مجددًا بعد { $wait }.
note-declined = تم رفض عملية الدفع. لا تزال مقاعدك محجوزة، ويمكنك المحاولة مرة أخرى.
note-pay-not-done = لم تكتمل عملية الدفع بعد. لا تزال مقاعدك محجوزة، ولن يُخصم المبلغ مرتين أبدًا؛ حاول مجددًا بعد { $wait }.
note-hold-ended = انتهى حجزك قبل إتمام الدفع، لذا لم يُخصم أي مبلغ وعادت المقاعد إلى البيع. يمكنك الاختيار مجددًا إن أردت.
note-already-paid = تم دفع ثمن هذه المقاعد، لذا لا يمكن إلغاء حجزها.
note-no-hold = لم نجد لديك حجزًا كهذا، لذا لم يتغير أي شيء. هذه هي حالتك الآن.
note-not-open = لم يبدأ البيع بعد، لذا لم يتغير أي شيء. تعرض هذه الصفحة العد التنازلي حتى موعد البدء.
note-failed = حدث خطأ من جهتنا، لذا لم تكتمل العملية. يُرجى المحاولة مرة أخرى.

## What went wrong, by the API's error code

error-network = تعذّر علينا الاتصال بـ Anteroom. تحقّق من اتصالك بالإنترنت؛ سنواصل المحاولة.
error-rate-limited = وردت محاولات كثيرة جدًا من شبكتك خلال الدقيقة الأخيرة، لذا لم يتغير أي شيء. يُرجى الانتظار قليلًا ثم المحاولة مجددًا.
error-unavailable = جزء من Anteroom لا يستجيب حاليًا، لذا لم يتغير أي شيء. يُرجى المحاولة مجددًا بعد بضع ثوانٍ.
error-seat-unavailable = حجز شخص آخر للتو مقعدًا اخترته، لذا لم يُحجز أي شيء. يُرجى الاختيار مجددًا.
error-not-admitted = لم يحن دورك لاختيار المقاعد، أو انتهى الوقت المخصص لك للاختيار. ما زلت تحتفظ بمكانك في الطابور.
error-not-in-queue = لم يعد لهذه الصفحة مكان في الطابور. أعد تحميلها للحصول على مكان.
error-not-found = لم نعثر على ما طلبته. أعد تحميل الصفحة لمعرفة حالتك.
error-not-open = لم يبدأ البيع بعد. تعرض هذه الصفحة العد التنازلي حتى موعد البدء.
error-conflict = تعارض ذلك مع تغيير أُجري قبل لحظات، لذا لم يتغير أي شيء. أعد تحميل الصفحة وحاول مجددًا.
error-unauthorized = لم يرسل متصفحك ملف تعريف الارتباط (cookie) الخاص بجلستنا. يُرجى السماح بملفات تعريف الارتباط لهذا الموقع وإعادة تحميل الصفحة.
error-forbidden = هذا الإجراء غير مسموح به لحسابك في هذا البيع.
error-bad-request = تعذّرت علينا قراءة هذا الطلب، لذا لم يتغير أي شيء. يُرجى المحاولة مرة أخرى.
error-internal = حدث خطأ من جهتنا. يُرجى المحاولة مرة أخرى.


## The event's page around its stages (app/src/onsale/mod.rs)

page-finding-place = جارٍ البحث عن مكانك في الطابور…
page-sign-in-to-join = سجّل الدخول للانضمام
page-not-for-your-account = هذا البيع غير متاح لحسابك
page-sign-in = تسجيل الدخول
page-all-events = عرض جميع الفعاليات
# The sign-in's own pages, when it does not go through (each with a way back).
signin-not-set-up-title = تسجيل الدخول غير مُعدّ هنا
signin-not-set-up = لم يُعدّ موقع هذا البيع تسجيل الدخول، لذا لا يمكنك تسجيل الدخول هنا.
signin-not-matched-title = لم يبدأ تسجيل الدخول هذا من هنا
signin-not-matched = تعذّرت مطابقة تسجيل الدخول مع أي تسجيل بدأه هذا المتصفح (أو استغرق أكثر من 10 دقائق). ابدأه من جديد.
signin-unavailable-title = تسجيل الدخول غير متاح الآن
signin-too-many-title = محاولات تسجيل دخول كثيرة جدًا من شبكتك
signin-failed-title = لم يكتمل تسجيل الدخول
signin-unavailable = خدمة تسجيل الدخول لا تستجيب الآن. حاول مجددًا بعد لحظة.
signin-failed = تعذّر إكمال تسجيل الدخول، لذا لم تُسجَّل دخولك. حاول مجددًا.
signin-back = رجوع
# The page an instance at capacity answers instead of a waiting room (it comes back by itself).
busy-title = لحظة من فضلك
busy-place-kept = وصل Anteroom إلى أقصى طاقته في هذه اللحظة؛ إن كان لك مكان في الطابور فهو محفوظ.
page-could-not-open = تعذّر علينا فتح هذا البيع
page-try-again = حاول مرة أخرى
page-tries-again-in = ستعيد هذه الصفحة المحاولة تلقائيًا بعد { $n ->
    [zero] { $n } ثانية
    [one] ثانية واحدة
    [two] ثانيتين
    [few] { $n } ثوانٍ
    [many] { $n } ثانية
   *[other] { $n } ثانية
}.

## What the page's live region says to a screen reader when the stage changes

say-not-open = لم يبدأ البيع بعد.
# $ticket: the buyer's ticket in the draw, a code.
say-pre-queue = أنت في الطابور المسبق، وتذكرتك في القرعة هي { $ticket }. سيتحدد مكانك بالقرعة.
say-paused = أنت في الطابور. البيع متوقف مؤقتًا.
# $wait: "about 5 minutes", "less than a minute".
say-waiting = أنت في الطابور، وسيحين دورك خلال { $wait }.
say-sold-out = نفدت التذاكر: بيعت جميع المقاعد.
say-moved = انتقل مكانك إلى جهاز آخر. تابع من هناك.
say-choosing = حان دورك: اختر مقاعدك.
say-holding = مقاعدك محجوزة. يُرجى الدفع قبل انتهاء الوقت.
say-confirmed = تم بنجاح. لقد اشتريت مقاعدك.

## Around every page, and the list of events (app/src/pages.rs)

# The name of the language switcher, for screen readers.
languages = اللغة
not-found = الصفحة غير موجودة
not-found-here = لا توجد صفحة هنا.
not-found-events = تصفّح الفعاليات المطروحة للبيع.
events-title = الفعاليات · Anteroom
events-heading = الفعاليات المطروحة للبيع
events-show-details = عرض تفاصيل القاعة
events-hide-details = إخفاء تفاصيل القاعة
events-loading = جارٍ تحميل الفعاليات…
events-none = لا توجد فعاليات مطروحة للبيع حتى الآن.
events-no-waiting = متاح للبيع: دون انتظار
events-paused = غرفة الانتظار متوقفة مؤقتًا
events-open = غرفة الانتظار مفتوحة
# $opens: "Tuesday 1 December 2026, 19:00 Berlin time".
events-opens = يبدأ البيع في { $opens }
events-opens-with-pre-queue = يبدأ البيع في { $opens }؛ ويُفتح الطابور المسبق من { $prequeue } (لكل من ينضم إليه فرصة متساوية)
events-admitted-per-second = عدد الداخلين في الثانية
events-hold-lasts = مدة الحجز
events-minutes = { $n ->
    [zero] { $n } دقيقة
    [one] دقيقة واحدة
    [two] دقيقتان
    [few] { $n } دقائق
    [many] { $n } دقيقة
   *[other] { $n } دقيقة
}
events-seats-per-buyer = المقاعد لكل مشترٍ

## Before the line: the countdowns and the pre-queue (app/src/onsale/opening.rs)

opening-not-yet = لم يبدأ البيع بعد
# $time: when the sale opens, e.g. "Tuesday 1 December, 19:00 (Berlin time)".
opening-sale-at = يبدأ البيع في { $time }
# $time: when the pre-queue opens; $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-prequeue-at = يُفتح الطابور المسبق في { $time }، بعد { $countdown }.
# $prequeue: when the pre-queue opens; $sale: when the sale opens (and the draw is made).
opening-prequeue-explained = كل من ينضم إلى الطابور المسبق بين { $prequeue } و{ $sale } يحصل على فرصة متساوية: في { $sale } تُجرى قرعة تضعهم جميعًا في الطابور بترتيب عشوائي، قبل كل من يأتي بعدهم. لا فرق في أن تكون الأول، فلا داعي للاستعجال: انضم في أي وقت قبل { $sale }.
# $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-sale-in = يبدأ البيع بعد { $countdown }. ومن تلك اللحظة تكون الأولوية لمن يصل أولًا.
opening-keep-open = أبقِ هذه الصفحة مفتوحة: ستنضم إلى الطابور نيابةً عنك عندما يحين الوقت.
opening-in-prequeue = أنت في الطابور المسبق
# $ticket: the buyer's ticket in the draw, a random code.
opening-your-ticket = تذكرتك في القرعة: { $ticket }
# $time: when the sale opens; $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-draw-at = تُجرى القرعة في { $time }، بعد { $countdown }.
opening-draw-now = تُجرى القرعة الآن: سيتحدد مكانك خلال لحظات.
# $time: when the sale opens (and the draw is made).
opening-draw-explained = كل من ينضم قبل { $time } يحصل على فرصة متساوية: لا فرق بين الانضمام مبكرًا أو في اللحظة الأخيرة. في { $time } تُجرى قرعة ترتّب جميع التذاكر ترتيبًا عشوائيًا، وهذا هو ترتيب الطابور، قبل كل من يأتي بعد { $time }.
opening-ticket-kept = أبقِ هذه الصفحة مفتوحة، أو عُد قبل القرعة: تبقى تذكرتك لك في كل علامات التبويب. إنها عشوائية ولا تكشف أي شيء عنك؛ وبعد القرعة يمكن لأي شخص التحقق من الموضع الذي وُضعت فيه كل تذكرة.

## The waiting room (app/src/onsale/waiting.rs)

waiting-in-room = أنت في غرفة الانتظار
# $place: waiting-position or waiting-position-about, shown in bold.
waiting-place = أنت { $place } في الطابور
# The buyer's exact place in line: "#14,812".
waiting-position = رقم { $n }
# The buyer's place in line when it is an estimate: "about #14,812".
waiting-position-about = رقم { $n } تقريبًا
waiting-paused = البيع متوقف مؤقتًا للحظات. ما زلت تحتفظ بمكانك، ولا يمكن لأحد أن يتجاوزك.
# $wait: "about 3 to 4 minutes", shown in bold.
waiting-turn-in = سيحين دورك خلال { $wait }.
waiting-progress = تقدّمك منذ انضمامك
# How often the page refreshes itself, in seconds.
waiting-refresh-every = { $n ->
    [60] كل دقيقة
    [zero] كل { $n } ثانية
    [one] كل ثانية
    [two] كل ثانيتين
    [few] كل { $n } ثوانٍ
    [many] كل { $n } ثانية
   *[other] كل { $n } ثانية
}
# $every: waiting-refresh-every ("every 3 seconds").
waiting-keep-open = أبقِ هذه الصفحة مفتوحة: فهي تتحدّث تلقائيًا ({ $every })، وستُدخلك عندما يحين دورك. تحديث الصفحة أو فتح علامات تبويب إضافية لا يغيّر مكانك.
waiting-refreshes = تتحدّث هذه الصفحة تلقائيًا، وبوتيرة أقل كلما كان دورك بعيدًا.
# $ticket: the buyer's ticket in the draw (a code); $place: the place the draw gave it ("14,812").
waiting-drawn-place = تحدّد مكانك بالقرعة: سُحبت التذكرة { $ticket } في المركز { $place }.
# $address: the web address where the draw is published (a link); $command: a command line to check it.
waiting-check-draw = تحقّق بنفسك: نتيجة القرعة منشورة على { $address } (السر الذي التُزم به قبل فتح الطابور المسبق، ومصدر العشوائية العام (beacon)، والبذرة (seed)، وجميع التذاكر بالترتيب). يمكن لأي شخص إعادة حسابها، أو تشغيل { $command }.
# Stands for the sale's web address in a command line the buyer may run.
waiting-this-site = <عنوان هذا الموقع>
waiting-recovered = تعافت غرفة الانتظار قبل لحظات من عطل في مخزن بياناتها. مكانك محفوظ حسب ترتيب وصولك؛ وقد يتراجع موضعك مؤقتًا ريثما تُعاد عمليات الدخول التي فُقدت بسبب العطل.
waiting-turn-passed = مرّ دورك دون أن تختار مقاعد، لذا عدت إلى الطابور.

## While the browser joins the line (app/src/onsale/arriving.rs)

arriving-getting-place = جارٍ الحصول على مكانك…
arriving-proof-work = يطلب هذا البيع من كل متصفح بضع ثوانٍ من العمل قبل الانضمام إلى الطابور، حتى لا يتمكن أحد من حجز أماكن بالجملة. يقوم متصفحك بذلك الآن؛ أبقِ هذه الصفحة مفتوحة وستتابع تلقائيًا.
arriving-proof-needs-script = يتطلب هذا العمل JavaScript: يُرجى تفعيله لهذا الموقع وإعادة تحميل الصفحة.
arriving-joining = لحظة من فضلك: متصفحك ينضم إلى الطابور.
arriving-reloads = سيُعاد تحميل هذه الصفحة تلقائيًا خلال ثانية ومعها مكانك.

## Pages without JavaScript (app/src/onsale/noscript.rs)

noscript-countdown-refresh = تتحدّث هذه الصفحة تلقائيًا، ويكون العد التنازلي دقيقًا عند كل تحديث.

## The buyer's turn: the seat map (app/src/onsale/seats.rs)

seats-your-turn = لقد دخلت: حان دورك.
seats-title = اختر مقاعدك
# $n: how many seats one buyer may hold at this sale.
seats-intro = { $n ->
    [zero] يمكنك اختيار ما يصل إلى { $n } مقعد. افتح قسمًا وحدّد المقاعد لاختيارها، أو دعنا نجد لك أفضل المقاعد المتجاورة.
    [one] يمكنك اختيار مقعد واحد كحد أقصى. افتح قسمًا وحدّد المقعد لاختياره، أو دعنا نجد لك أفضل مقعد.
    [two] يمكنك اختيار ما يصل إلى مقعدين. افتح قسمًا وحدّد المقاعد لاختيارها، أو دعنا نجد لك أفضل المقاعد المتجاورة.
    [few] يمكنك اختيار ما يصل إلى { $n } مقاعد. افتح قسمًا وحدّد المقاعد لاختيارها، أو دعنا نجد لك أفضل المقاعد المتجاورة.
    [many] يمكنك اختيار ما يصل إلى { $n } مقعدًا. افتح قسمًا وحدّد المقاعد لاختيارها، أو دعنا نجد لك أفضل المقاعد المتجاورة.
   *[other] يمكنك اختيار ما يصل إلى { $n } مقعد. افتح قسمًا وحدّد المقاعد لاختيارها، أو دعنا نجد لك أفضل المقاعد المتجاورة.
}
# The label of the list of the hall's sections (read by screen readers).
seats-sections = الأقسام
# The map's legend: what a seat's colour means.
seats-available = متاح
seats-chosen = اختيارك
seats-held = محجوز
seats-sold = مُباع
# The buyer picks how large the seats are drawn.
seats-size = حجم المقاعد
seats-size-small = صغير
seats-size-medium = متوسط
seats-size-large = كبير
# Marks where the stage is, above the seats.
seats-stage = المسرح
# A section's tile in the overview: its seats still free.
seats-left = { $n ->
    [0] لا توجد مقاعد متاحة الآن
    [zero] لا توجد مقاعد متاحة الآن
    [one] بقي مقعد واحد
    [two] بقي مقعدان
    [few] بقي { $n } مقاعد
    [many] بقي { $n } مقعدًا
   *[other] بقي { $n } مقعد
}
# A section's prices, cheapest to dearest: "25.00 EUR to 45.00 EUR".
seats-price-range = من { $low } إلى { $high }
# A seat's name: "Stalls row 4 seat 12" ($section and $row are the venue's own names).
seats-seat = { $section } الصف { $row } المقعد { $seat }
# A seat the map no longer shows, by its code.
seats-seat-id = المقعد { $id }
# Between seats' names in a list: "Stalls row 4 seat 12, Stalls row 4 seat 13".
seats-list-separator = { "، " }
# A row of seats, as screen readers name it: "Stalls row 4".
seats-row = { $section } الصف { $row }
# A seat's checkbox, as screen readers read it: "Stalls row 4 seat 12, 45.00 EUR, available".
seats-seat-described = { $section } الصف { $row } المقعد { $seat }، { $price }، { $status ->
    [available] متاح
    [held] محجوز
   *[sold] مُباع
}
# $n: how many seats are ticked.
seats-hold-button = { $n ->
    [0] احجز المقاعد التي حدّدتها
    [zero] احجز المقاعد التي حدّدتها
    [one] احجز مقعدًا واحدًا
    [two] احجز مقعدين
    [few] احجز { $n } مقاعد
    [many] احجز { $n } مقعدًا
   *[other] احجز { $n } مقعد
}
seats-best = أو: أفضل المقاعد المتاحة
seats-best-section = القسم
# How many seats to find together.
seats-best-quantity = عدد المقاعد
seats-find = ابحث لي عن مقاعد
# $seats: the seats' names, as a list ("Stalls row 4 seat 12, Stalls row 4 seat 13").
seats-taken = حجز شخص آخر للتو { $seats }. تعرض الخريطة الآن المقاعد المتبقية؛ يُرجى الاختيار مجددًا.
seats-not-together = لم يعد في هذا القسم هذا العدد من المقاعد المتجاورة. جرّب عددًا أقل من المقاعد أو قسمًا آخر.
# $n: how many seats one buyer may hold at this sale.
seats-limit-reached = { $n ->
    [zero] يمكنك حجز { $n } مقعد كحد أقصى؛ ألغِ تحديد أحدها لاختيار مقعد آخر.
    [one] يمكنك حجز مقعد واحد كحد أقصى؛ ألغِ تحديده لاختيار مقعد آخر.
    [two] يمكنك حجز مقعدين كحد أقصى؛ ألغِ تحديد أحدهما لاختيار مقعد آخر.
    [few] يمكنك حجز { $n } مقاعد كحد أقصى؛ ألغِ تحديد أحدها لاختيار مقعد آخر.
    [many] يمكنك حجز { $n } مقعدًا كحد أقصى؛ ألغِ تحديد أحدها لاختيار مقعد آخر.
   *[other] يمكنك حجز { $n } مقعد كحد أقصى؛ ألغِ تحديد أحدها لاختيار مقعد آخر.
}

## The buyer's turn: seats held (app/src/onsale/held.rs)

held-title = مقاعدك محجوزة
# $time is a countdown, "4:59", shown in bold.
held-for = الوقت المتبقي للحجز: { $time }
# $amount: "90.00 EUR".
held-pay = ادفع { $amount }
held-release = إلغاء حجز المقاعد
held-ended = انتهى حجزك وعادت المقاعد إلى البيع. يمكنك الاختيار مجددًا إن أردت.
held-one-minute = تبقّت دقيقة واحدة: ادفع الآن وإلا ستعود المقاعد إلى البيع.
# A held seat: "Stalls · row 4 · seat 12" ($section and $row are the venue's own names).
held-seat = { $section } · الصف { $row } · المقعد { $seat }
held-total = الإجمالي

## The end: sold out, or the order confirmed (app/src/onsale/done.rs)

done-sold-out-title = نفدت التذاكر
done-sold-out = بيعت جميع مقاعد هذه الفعالية، لذا أُغلقت غرفة الانتظار.
done-title = تهانينا، ستحضر الفعالية!
# $order is the order's number, shown in bold.
done-order-number = رقم الطلب { $order }
done-keep = احتفظ برقم الطلب؛ تذاكرك في طريقها إليك.
done-back = العودة إلى الفعاليات

## Moving a place to another device (app/src/onsale/moving.rs)

# A page without JavaScript opened with a move code: the form that claims the place.
moving-claim-coming = مكانك في الطابور ينتقل إلى هنا من جهازك الآخر.
# The button that claims a place moved from another device (the no-JavaScript form and the
# "Have a code from another device?" form).
moving-move-mine-here = انقل مكاني إلى هنا
# Read by screen readers: the box that asks whether to take a place moving here over this page's own.
moving-choice-label = مكان ينتقل إلى هنا
moving-choice-move = انقل ذلك المكان إلى هنا
moving-choice-keep = احتفظ بمكان هذا الجهاز
# The button that asks for a one-time code moving this page's place to another device.
moving-continue-elsewhere = المتابعة على جهاز آخر
moving-code-heading = رمزك للجهاز الآخر
# Also quoted inside move-explained.
moving-have-code = هل لديك رمز من جهاز آخر؟
# The label of the field where the buyer types the code.
moving-code-label = الرمز الظاهر على جهازك الآخر
