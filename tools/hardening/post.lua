-- wrk script: POST /v1/suggest with a JSON body (valid request; every answer must be 2xx).
wrk.method = "POST"
wrk.body   = '{"name":"淡路島産 カラーにんじん 3本","k":5}'
wrk.headers["Content-Type"] = "application/json"
